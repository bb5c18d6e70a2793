"""Straight-line kernels emitted as LLVM IR inside one numba function.

numba types and lowers Python source one operation at a time, at about a millisecond per operation and worse
than linearly in the length of the function (a 4,000-line kernel takes about a minute). The generated kernels
are straight-line floating-point code whose types are known (every value a float64), so each sympy node is
written directly as an LLVM instruction (fadd, fmul, fdiv; numba's own lowering of ``math.sin`` etc. for the
functions) in the body of a numba intrinsic. LLVM's optimization is also superlinear in the length of a basic
block, so the code is cut into functions of ``_CHUNK`` statements (not inlined) that pass values on through a
stack array; the kernel compiles in seconds.
"""
from __future__ import annotations

import itertools
import math

import numba
import sympy as sp
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

_DOUBLE = ir.DoubleType()
_POINTER = _DOUBLE.as_pointer()
_FUNCTIONS = {sp.sin: math.sin, sp.cos: math.cos, sp.tan: math.tan, sp.asin: math.asin, sp.acos: math.acos,
              sp.atan: math.atan, sp.atan2: math.atan2, sp.sinh: math.sinh, sp.cosh: math.cosh,
              sp.tanh: math.tanh, sp.exp: math.exp, sp.log: math.log, sp.Abs: math.fabs}
_INPUTS, _OUTPUTS = ("q", "u", "r"), ("X", "Y", "QD", "B", "C")
_TIME = sp.Symbol("t_")
_CHUNK = 400
# a chunk of the kernel: (stack array, t_, data of X, Y, QD, B, C)
_CHUNK_TYPE = ir.FunctionType(ir.VoidType(), [_POINTER, _DOUBLE, *[_POINTER] * len(_OUTPUTS)])
_NAMES = itertools.count()


def llvm_kernel(code: list[tuple[sp.Expr, sp.Expr]], columns: int) -> numba.core.dispatcher.Dispatcher:
    """kernel(t_, q, u, r, X, Y, QD, B, C), numba-compiled, running ``code``: (target, expression) pairs in
    order — reads (a Symbol = an Indexed element of q, u or r), local values (Symbol = expression in t_ and
    earlier targets) and writes (an Indexed element of an output array, C-contiguous with ``columns`` columns
    when 2-D, = expression). NotImplementedError if an expression has a node other than numbers, +, ×, powers
    and the functions of ``_FUNCTIONS``."""
    for _, expr in code:
        _check(expr)
    reads = [(s, e) for s, e in code if isinstance(e, sp.Indexed)]
    statements = [(t, e) for t, e in code if not isinstance(e, sp.Indexed)]
    chunks = [statements[i:i + _CHUNK] for i in range(0, len(statements), _CHUNK)]
    slots = {t: k for k, (t, _) in enumerate(code) if not isinstance(t, sp.Indexed)}
    # the values used outside the function that computes them go through the stack array
    chunk_of = {t: c for c, chunk in enumerate(chunks) for t, _ in chunk}
    shared = {s for c, chunk in enumerate(chunks) for _, e in chunk for s in e.free_symbols if chunk_of.get(s) != c}

    @intrinsic
    def body(typingctx, t_, q, u, r, X, Y, QD, B, C):
        signature = types.void(t_, q, u, r, X, Y, QD, B, C)

        def codegen(context, builder, sig, args):
            arrays = dict(zip(_INPUTS + _OUTPUTS, (context.make_array(a)(context, builder, v)
                                                    for a, v in zip(sig.args[1:], args[1:]))))
            scratch = cgutils.alloca_once(builder, _DOUBLE, size=max(len(slots), 1))
            for symbol, element in reads:
                index = [ir.Constant(ir.IntType(64), int(i)) for i in element.indices]
                name = str(element.base)
                value = builder.load(cgutils.get_item_pointer(context, builder, sig.args[1 + _INPUTS.index(name)],
                                                              arrays[name], index))
                builder.store(value, _element(builder, scratch, slots[symbol]))
            for chunk in chunks:
                function = ir.Function(builder.module, _CHUNK_TYPE, name=f"multibody_kernel_{next(_NAMES)}")
                function.linkage = "internal"
                function.attributes.add("noinline")
                emit = _Emitter(context, ir.IRBuilder(function.append_basic_block()), function.args[0], slots)
                emit.values[_TIME] = function.args[1]
                outputs = dict(zip(_OUTPUTS, function.args[2:]))
                for target, expr in chunk:
                    value = emit(expr)
                    if isinstance(target, sp.Indexed):  # X[i, j] at i · columns + j
                        flat = sum(int(i) * columns ** k for k, i in enumerate(reversed(target.indices)))
                        emit.builder.store(value, _element(emit.builder, outputs[str(target.base)], flat))
                    else:
                        emit.values[target] = value
                        if target in shared:
                            emit.builder.store(value, _element(emit.builder, function.args[0], slots[target]))
                emit.builder.ret_void()
                builder.call(function, [scratch, args[0], *(arrays[name].data for name in _OUTPUTS)])
            return context.get_dummy_value()

        return signature, codegen

    def kernel(t_, q, u, r, X, Y, QD, B, C):
        body(t_, q, u, r, X, Y, QD, B, C)

    return numba.njit(cache=False)(kernel)


def _element(builder, pointer, index):
    """Address of pointer[index] for a double*."""
    return builder.gep(pointer, [ir.Constant(ir.IntType(64), index)])


def _check(expr):
    for node in sp.preorder_traversal(expr):
        if not (node.is_Symbol or node.is_Add or node.is_Mul or node.is_Pow or type(node) in _FUNCTIONS
                or isinstance(node, (sp.Indexed, sp.IndexedBase)) or (node.is_number and node.is_real)):
            raise NotImplementedError(f"LLVM kernel: no instruction for {type(node).__name__}")


class _Emitter:
    """Emits an expression's instructions, each distinct subexpression once (``values``: sympy -> IR value);
    a symbol computed in another function is loaded from its slot of the stack array ``scratch``."""

    def __init__(self, context, builder, scratch, slots):
        self.context, self.builder, self.scratch, self.slots = context, builder, scratch, slots
        self.values = {}

    def __call__(self, expr):
        if expr not in self.values:
            self.values[expr] = self._emit(expr)
        return self.values[expr]

    def _emit(self, expr):
        b = self.builder
        if expr.is_number:
            return ir.Constant(_DOUBLE, float(expr))
        if expr.is_Symbol:
            return b.load(_element(b, self.scratch, self.slots[expr]))
        if expr.is_Add:
            # a + b − c: the terms with a minus sign subtracted
            value = None
            for term in expr.args:
                negative = term.could_extract_minus_sign()
                x = self(-term if negative else term)
                if value is None:
                    value = b.fneg(x) if negative else x
                else:
                    value = b.fsub(value, x) if negative else b.fadd(value, x)
            return value
        if expr.is_Mul:
            # c · Π numerator / Π denominator (the factors with negative integer powers)
            coefficient, factors = expr.as_coeff_mul()
            numerator = [f for f in factors if not (f.is_Pow and f.exp.is_Integer and f.exp < 0)]
            denominator = [1 / f for f in factors if f not in numerator]
            if abs(coefficient) != 1:
                numerator.insert(0, abs(coefficient))
            value = self._product(numerator) if numerator else ir.Constant(_DOUBLE, 1.0)
            if denominator:
                value = b.fdiv(value, self._product(denominator))
            return b.fneg(value) if coefficient < 0 else value
        if expr.is_Pow:
            base, exponent = expr.args
            one = ir.Constant(_DOUBLE, 1.0)
            if exponent.is_Integer:
                power = self._power(self(base), abs(int(exponent)))
                return power if exponent > 0 else b.fdiv(one, power)
            if abs(exponent) == sp.Rational(1, 2):
                root = self._call(math.sqrt, [base])
                return root if exponent > 0 else b.fdiv(one, root)
            return self._call(math.pow, [base, exponent])
        return self._call(_FUNCTIONS[type(expr)], expr.args)

    def _product(self, factors):
        value = self(factors[0])
        for f in factors[1:]:
            value = self.builder.fmul(value, self(f))
        return value

    def _power(self, x, k):
        """x^k for an integer k > 0 by repeated squaring."""
        if k == 1:
            return x
        half = self._power(x, k // 2)
        square = self.builder.fmul(half, half)
        return self.builder.fmul(square, x) if k % 2 else square

    def _call(self, function, args):
        signature = types.float64(*[types.float64] * len(args))
        implementation = self.context.get_function(function, signature)
        return implementation(self.builder, [self(a) for a in args])
