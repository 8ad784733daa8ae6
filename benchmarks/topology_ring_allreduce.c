/* Ring all-reduce timer for the topology lab proof (benchmarks/topology_lab_proof.py).
 * One rank per host; prints the hosts in rank order, time per all-reduce, algbw and busbw
 * (nccl-tests definitions: busbw = algbw * 2(n-1)/n), and whether the sums are right.
 * Run with Open MPI's ring forced: --mca coll_tuned_use_dynamic_rules 1
 * --mca coll_tuned_allreduce_algorithm 4. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long bytes = argc > 1 ? atol(argv[1]) : 32L << 20;
    int iters = argc > 2 ? atoi(argv[2]) : 3;
    long n = bytes / (long)sizeof(float);
    float *in = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
    if (!in || !out) MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 0; i < n; i++) in[i] = (float)(rank + 1);

    char name[MPI_MAX_PROCESSOR_NAME] = {0}, *names = NULL;
    int len;
    MPI_Get_processor_name(name, &len);
    if (rank == 0) names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);

    MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); /* warm-up */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++)
        MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = (MPI_Wtime() - t0) / iters;

    float want = (float)size * (size + 1) / 2;
    int ok = out[0] == want && out[n - 1] == want, all_ok;
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("order");
        for (int r = 0; r < size; r++) printf(" %s", names + (size_t)r * MPI_MAX_PROCESSOR_NAME);
        double algbw = bytes / t / 1e9;
        printf("\nbytes %ld ranks %d time_s %.6f algbw_GBps %.6f busbw_GBps %.6f check %s\n",
               bytes, size, t, algbw, algbw * 2.0 * (size - 1) / size, all_ok ? "ok" : "WRONG");
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
