#include "textflag.h"

// func storeLoad(p *atomic.Uint64, v uint64, q *atomic.Int32) int32
TEXT ·storeLoad(SB), NOSPLIT, $0-28
	MOVQ p+0(FP), AX
	MOVQ v+8(FP), BX
	MOVQ q+16(FP), CX
	MOVQ BX, (AX)
	MOVL (CX), DX
	MOVL DX, ret+24(FP)
	RET

// func store(p *atomic.Uint64, v uint64)
TEXT ·store(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ v+8(FP), BX
	MOVQ BX, (AX)
	RET

// func prefetchW(p unsafe.Pointer)
TEXT ·prefetchW(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	BYTE $0x0f; BYTE $0x0d; BYTE $0x08 // PREFETCHW (AX)
	RET

// func pause()
TEXT ·pause(SB), NOSPLIT, $0-0
	PAUSE
	RET
