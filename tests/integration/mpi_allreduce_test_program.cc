// An MPI program for pmix_test.cc: every rank adds its rank + 1 in an
// allreduce and checks the sum; rank 0 prints it with the world size and the
// names of the nodes the ranks ran on. MPI's C interface.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

// Open MPI keeps allocations of components it has unloaded until the
// process ends, which the leak checker of sanitized builds cannot attribute;
// this test program does not check leaks.
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long mine = rank + 1;
  long sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  const long want = static_cast<long>(size) * (size + 1) / 2;
  // Which node each rank is on, as its launcher named it.
  char node[64] = {0};
  const char* name = getenv("SLURMD_NODENAME");
  std::strncpy(node, name != nullptr ? name : "?", sizeof node - 1);
  char* nodes = rank == 0 ? static_cast<char*>(std::calloc(size, sizeof node)) : nullptr;
  MPI_Gather(node, sizeof node, MPI_CHAR, nodes, sizeof node, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("allreduce size=%d sum=%ld %s nodes=", size, sum, sum == want ? "ok" : "WRONG");
    for (int r = 0; r < size; ++r)
      printf("%s%s", r > 0 ? "," : "", nodes + static_cast<size_t>(r) * sizeof node);
    printf("\n");
    fflush(stdout);
    std::free(nodes);
  }
  MPI_Finalize();
  return sum == want ? 0 : 1;
}
