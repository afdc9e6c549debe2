"""Bit instructions for the kernels: population count, and bit extract/deposit (PEXT/PDEP,
"squeeze a mask by the cells another leaves free" and its inverse), each one CPU instruction
where the host has it.

`popcount` is LLVM's ctpop (POPCNT, or a few instructions where the CPU lacks it). `pext` and
`pdep` use BMI2 where numba compiles for this host's CPU and that CPU runs them fast; `HAS_FAST_BMI2`
says which, and callers keep a table-based way for the rest (AMD before Zen 3 microcodes them:
hundreds of cycles each). Only this module touches LLVM.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils, config
from numba.extending import intrinsic

#: AMD cores that run PEXT/PDEP in microcode (LLVM's CPU names).
_SLOW_BMI2 = ("znver1", "znver2", "bdver", "btver")


def _host_has_fast_bmi2() -> bool:
    """Whether numba compiles for this host's CPU, and that CPU runs BMI2 at full speed."""
    if config.CPU_NAME or config.CPU_FEATURES:  # a chosen target (say "generic" for portable caches)
        return False
    try:
        from llvmlite import binding

        features = binding.get_host_cpu_features()
        name = binding.get_host_cpu_name()
    except Exception:  # noqa: BLE001 - no feature query on this platform: take the portable way
        return False
    return bool(features.get("bmi2")) and not name.startswith(_SLOW_BMI2)


HAS_FAST_BMI2 = _host_has_fast_bmi2()


def _int64_call(name: str, arity: int):
    """An intrinsic calling LLVM function `name` on `arity` int64 arguments."""
    def typer(typingctx, *args):
        sig = types.int64(*([types.int64] * arity))

        def codegen(context, builder, signature, values):
            function_type = ir.FunctionType(ir.IntType(64), [ir.IntType(64)] * arity)
            return builder.call(cgutils.get_or_insert_function(builder.module, function_type, name), values)

        return sig, codegen

    return typer


@intrinsic
def popcount(typingctx, value):
    """Set bits of a 64-bit integer."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def pext(typingctx, value, selector):
    """The bits of `value` where `selector` is set, packed to the low end (BMI2: only where
    HAS_FAST_BMI2)."""
    return _int64_call("llvm.x86.bmi.pext.64", 2)(typingctx, value, selector)


@intrinsic
def pdep(typingctx, value, selector):
    """The low bits of `value` spread to where `selector` is set (BMI2: only where HAS_FAST_BMI2)."""
    return _int64_call("llvm.x86.bmi.pdep.64", 2)(typingctx, value, selector)
