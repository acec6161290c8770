// A PMIx client for pmix_test.cc, started by srun --mpi=pmix as every task:
// it reads what its server says of the step, puts a value, enters a fence
// that collects data, and reads every other rank's value (on this node and
// the other). Prints one line; exits 0 when it saw them all. With "abort",
// rank 1 calls PMIx_Abort instead and the others wait in the fence.
#include <pmix.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

std::string GetString(const pmix_proc_t& proc, const char* key) {
  pmix_value_t* value = nullptr;
  if (PMIx_Get(&proc, key, nullptr, 0, &value) != PMIX_SUCCESS || value == nullptr) return "?";
  std::string text =
      value->type == PMIX_STRING && value->data.string != nullptr ? value->data.string : "?";
  PMIX_VALUE_RELEASE(value);
  return text;
}

uint32_t GetUint32(const pmix_proc_t& proc, const char* key) {
  pmix_value_t* value = nullptr;
  if (PMIx_Get(&proc, key, nullptr, 0, &value) != PMIX_SUCCESS || value == nullptr) return 0;
  uint32_t number = value->type == PMIX_UINT32 ? value->data.uint32 : 0;
  PMIX_VALUE_RELEASE(value);
  return number;
}

}  // namespace

// OpenPMIx keeps some of what it allocates until the process ends (sanitized
// builds check leaks).
extern "C" const char* __lsan_default_suppressions() { return "leak:libpmix.so\n"; }

int main(int argc, char** argv) {
  pmix_proc_t me;
  pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    std::fprintf(stderr, "PMIx_Init: %s\n", PMIx_Error_string(rc));
    return 2;
  }
  pmix_proc_t step = me;
  step.rank = PMIX_RANK_WILDCARD;
  if (argc > 1 && std::strcmp(argv[1], "abort") == 0 && me.rank == 1) {
    PMIx_Abort(3, "rank 1 gives up", nullptr, 0);
    return 3;
  }
  const uint32_t size = GetUint32(step, PMIX_JOB_SIZE);
  const std::string peers = GetString(step, PMIX_LOCAL_PEERS);
  const std::string host = GetString(me, PMIX_HOSTNAME);

  const std::string mine = "from " + std::to_string(me.rank);
  pmix_value_t value;
  PMIX_VALUE_LOAD(&value, mine.c_str(), PMIX_STRING);
  PMIx_Put(PMIX_GLOBAL, "rota.test.value", &value);
  PMIX_VALUE_DESTRUCT(&value);
  PMIx_Commit();
  pmix_info_t collect;
  bool yes = true;
  PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
  rc = PMIx_Fence(&step, 1, &collect, 1);
  if (rc != PMIX_SUCCESS) {
    std::fprintf(stderr, "PMIx_Fence: %s\n", PMIx_Error_string(rc));
    return 2;
  }
  uint32_t saw = 0;
  for (uint32_t r = 0; r < size; ++r) {
    if (r == me.rank) continue;
    pmix_proc_t other = me;
    other.rank = r;
    if (GetString(other, "rota.test.value") == "from " + std::to_string(r)) ++saw;
  }
  const bool ok = size > 1 && saw == size - 1;
  std::printf("rank=%u size=%u ns=%s host=%s peers=%s saw=%u/%u %s\n", me.rank, size, me.nspace,
              host.c_str(), peers.c_str(), saw, size - 1, ok ? "ok" : "MISSING");
  std::fflush(stdout);
  PMIx_Finalize(nullptr, 0);
  return ok ? 0 : 1;
}
