"""URDF and SRDF files as XML trees: a file path or an XML string, and errors that name the file and the place of
malformed XML."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from ..errors import ModelError


def read_robot_xml(path_or_xml, kind="URDF"):
    """(source label, root element) of a file path or an XML string (``kind``: "URDF" or "SRDF", for messages)."""
    text = str(path_or_xml)
    if text.lstrip().startswith("<"):
        source, xml = f"<{kind.lower()} string>", text
    else:
        source = text
        if not Path(text).is_file():
            raise ModelError(f"{source}: {'not a regular file' if Path(text).exists() else f'no such {kind} file'}")
        xml = Path(text).read_text()
    try:
        return source, ET.fromstring(xml)
    except ET.ParseError as exc:
        line, column = exc.position
        raise ModelError(f"{source}: malformed XML at line {line}, column {column + 1}: "
                         f"{str(exc).split(':')[0]}") from None
