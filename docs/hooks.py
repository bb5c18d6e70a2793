"""mkdocs hook: the docstrings' Sphinx roles (:class:`~multibody.Model`, :func:`simulate`) shown as code."""
import re

ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):<code>(~?)([^<]*)</code>")


def on_page_content(html, **kwargs):
    """Replace a role and its ``<code>`` by the code alone; ``~a.b.C`` keeps the last name, ``C``."""
    return ROLE.sub(lambda m: f"<code>{m.group(2).split('.')[-1] if m.group(1) else m.group(2)}</code>", html)
