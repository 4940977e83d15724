#include "textflag.h"

// Each function name(in, inout *byte, n int) sets inout[i] = in[i] +
// inout[i] over n bytes, n a multiple of 64, 64 bytes a turn in SSE2
// registers (amd64's baseline: no feature check). Element by element the
// result is the scalar loop's, bit for bit: the same additions with the
// same operands in the same order, nothing regrouped.
#define SUMBODY(instr) \
	MOVQ in+0(FP), SI \
	MOVQ inout+8(FP), DI \
	MOVQ n+16(FP), CX \
	SHRQ $6, CX \
	JZ   done \
loop: \
	MOVOU 0(SI), X0 \
	MOVOU 16(SI), X1 \
	MOVOU 32(SI), X2 \
	MOVOU 48(SI), X3 \
	MOVOU 0(DI), X4 \
	MOVOU 16(DI), X5 \
	MOVOU 32(DI), X6 \
	MOVOU 48(DI), X7 \
	instr X4, X0 \
	instr X5, X1 \
	instr X6, X2 \
	instr X7, X3 \
	MOVOU X0, 0(DI) \
	MOVOU X1, 16(DI) \
	MOVOU X2, 32(DI) \
	MOVOU X3, 48(DI) \
	ADDQ $64, SI \
	ADDQ $64, DI \
	DECQ CX \
	JNZ  loop \
done: \
	RET

// func addF32(in, inout *byte, n int)
TEXT ·addF32(SB), NOSPLIT, $0-24
	SUMBODY(ADDPS)

// func addF64(in, inout *byte, n int)
TEXT ·addF64(SB), NOSPLIT, $0-24
	SUMBODY(ADDPD)

// func addI8(in, inout *byte, n int)
TEXT ·addI8(SB), NOSPLIT, $0-24
	SUMBODY(PADDB)

// func addI16(in, inout *byte, n int)
TEXT ·addI16(SB), NOSPLIT, $0-24
	SUMBODY(PADDW)

// func addI32(in, inout *byte, n int)
TEXT ·addI32(SB), NOSPLIT, $0-24
	SUMBODY(PADDL)

// func addI64(in, inout *byte, n int)
TEXT ·addI64(SB), NOSPLIT, $0-24
	SUMBODY(PADDQ)
