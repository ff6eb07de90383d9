// vector-add.cu: add two vectors, c[i] = a[i] + b[i], with one thread per element.
// The vectors have n = 1000003 elements, which is not a multiple of the block
// size (256): the grid is rounded up, so the last block has threads with no
// element to work on. Fill in the kernel body below.

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    // TODO: compute this thread's global index i.

    // TODO: only if i is inside the vectors (i < n), write element i of c:
    //       the sum of element i of a and element i of b.
}
