//go:build amd64 && !purego

#include "textflag.h"

// LOWER folds shingle X (broadcast) into the running minimum Z2 of the
// eight permutations whose multipliers are in Z0 and addends in Z1:
// Z2 = min(Z2, (Z0·X + Z1) >> 32), each a 64-bit lane.
#define LOWER(X, T) \
	VPMULLQ X, Z0, T \
	VPADDQ  Z1, T, T \
	VPSRLQ  $32, T, T \
	VPMINUQ T, Z2, Z2

// func lowerBatchAVX512(sig *signature, xs *[batchShingles]uint64, a, b *[permutations]uint64)
TEXT ·lowerBatchAVX512(SB), NOSPLIT, $0-32
	MOVQ sig+0(FP), DI
	MOVQ xs+8(FP), SI
	MOVQ a+16(FP), R8
	MOVQ b+24(FP), R9
	VPBROADCASTQ 0(SI), Z16
	VPBROADCASTQ 8(SI), Z17
	VPBROADCASTQ 16(SI), Z18
	VPBROADCASTQ 24(SI), Z19
	VPBROADCASTQ 32(SI), Z20
	VPBROADCASTQ 40(SI), Z21
	VPBROADCASTQ 48(SI), Z22
	VPBROADCASTQ 56(SI), Z23
	MOVQ $16, CX // permutations / 8

loop:
	VMOVDQU64 (R8), Z0
	VMOVDQU64 (R9), Z1
	VPMOVZXDQ (DI), Z2
	LOWER(Z16, Z3)
	LOWER(Z17, Z4)
	LOWER(Z18, Z5)
	LOWER(Z19, Z6)
	LOWER(Z20, Z7)
	LOWER(Z21, Z8)
	LOWER(Z22, Z9)
	LOWER(Z23, Z10)
	VPMOVQD Z2, (DI) // each minimum is below 2³², so narrowing keeps it
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $32, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET
