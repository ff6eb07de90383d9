// tests/bugs/race_blocks_accumulate.cu: thread 0 of every block adds its
// block's value to out[0] with a plain read-modify-write: the blocks race
// (each reads what another block may be writing), and updates get lost on a
// GPU. atomicAdd is the fix. A race between blocks, not inside one.
// LAUNCH: grid=8 block=32 n=256
extern "C" __global__ void race_blocks_accumulate(float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0 && i < n) out[0] += in[i]; // BUG: race-global
    // SAYS: Race between blocks
}
