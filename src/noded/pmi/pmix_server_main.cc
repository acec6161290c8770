// rota-pmix: the PMIx server of one node's tasks of a srun --mpi=pmix step
// (docs/mpi.md). OpenPMIx keeps one server per process, and rotad serves many
// steps from threads, so rotad starts one of these per step and node with its
// end of a socket pair as descriptor 3 (noded/pmi/pmix_tasks.h).
//
// On descriptor 3, framed as rotad's other local messages: rotad sends the
// step (PmixSetup); this program makes the step's directory, registers the
// namespace and the local ranks, and answers with each task's variables
// (Ready). Then every fence the local tasks enter goes to rotad with this
// node's contribution (Fence), which srun gathers from every node like a
// PMI-2 fence; the contributions of all nodes come back (FenceDone) and the
// tasks' fence returns with them. A task's PMIx_Abort goes to rotad (Abort).
// When rotad closes its end, the server stops and the directory goes.

#include <grp.h>
#include <pmix.h>
#include <pmix_server.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/log.h"
#include "noded/pmi/pmix_step_layout.h"
#include "noded/stepd/step_channel.h"
#include "pmix_helper.pb.h"

namespace rota::noded {
namespace {

constexpr int kRotadFd = 3;

std::mutex g_send_mu;  // PMIx calls us from its own thread
std::string g_nspace;
uint32_t g_size = 0;

void SendToRotad(const wire::PmixHelperMessage& message) {
  std::lock_guard<std::mutex> lock(g_send_mu);
  if (Status sent = WriteStepMessage(kRotadFd, message); !sent.ok()) {
    spdlog::warn("rota-pmix: cannot reach rotad: {}", sent.message());
  }
}

int Fail(const std::string& why) {
  wire::PmixHelperMessage message;
  message.set_error(why);
  SendToRotad(message);
  spdlog::error("rota-pmix: {}", why);
  return 1;
}

// Fences waiting for the other nodes, by round.
struct WaitingFence {
  pmix_modex_cbfunc_t done;
  void* cbdata;
};
std::mutex g_fence_mu;
std::map<uint32_t, WaitingFence> g_fences;
uint32_t g_next_round = 0;

// Only fences of the whole step travel: a fence of some ranks would need its
// own exchange among fewer nodes (not done; docs/mpi.md).
bool WholeStep(const pmix_proc_t procs[], size_t nprocs) {
  if (nprocs == 1 && procs[0].rank == PMIX_RANK_WILDCARD) {
    return g_nspace == procs[0].nspace;
  }
  return nprocs == g_size;
}

pmix_status_t OnFence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t,
                      char* data, size_t ndata, pmix_modex_cbfunc_t done, void* cbdata) {
  if (!WholeStep(procs, nprocs)) return PMIX_ERR_NOT_SUPPORTED;
  wire::PmixHelperMessage message;
  {
    std::lock_guard<std::mutex> lock(g_fence_mu);
    const uint32_t round = g_next_round++;
    g_fences[round] = {done, cbdata};
    message.mutable_fence()->set_round(round);
  }
  message.mutable_fence()->set_data(std::string(data != nullptr ? data : "", ndata));
  SendToRotad(message);
  return PMIX_SUCCESS;
}

void ReleaseFenceData(void* data) { std::free(data); }

void OnFenceDone(const wire::PmixHelperMessage::FenceDone& done) {
  WaitingFence fence{};
  {
    std::lock_guard<std::mutex> lock(g_fence_mu);
    auto it = g_fences.find(done.round());
    if (it == g_fences.end()) {
      spdlog::warn("rota-pmix: fence {} is not under way", done.round());
      return;
    }
    fence = it->second;
    g_fences.erase(it);
  }
  // The server library reads the nodes' contributions one after the other.
  size_t size = 0;
  for (const std::string& part : done.contributions()) size += part.size();
  char* all = static_cast<char*>(std::malloc(size > 0 ? size : 1));
  size_t at = 0;
  for (const std::string& part : done.contributions()) {
    std::memcpy(all + at, part.data(), part.size());
    at += part.size();
  }
  if (fence.done != nullptr) {
    fence.done(PMIX_SUCCESS, all, size, fence.cbdata, ReleaseFenceData, all);
  } else {
    std::free(all);
  }
}

pmix_status_t OnAbort(const pmix_proc_t* proc, void*, int status, const char message[],
                      pmix_proc_t[], size_t, pmix_op_cbfunc_t done, void* cbdata) {
  wire::PmixHelperMessage abort;
  abort.mutable_abort()->set_rank(proc->rank);
  abort.mutable_abort()->set_status(status);
  abort.mutable_abort()->set_message(message != nullptr ? message : "");
  SendToRotad(abort);
  if (done != nullptr) done(PMIX_SUCCESS, cbdata);
  return PMIX_SUCCESS;
}

// A remote rank's data outside a fence (an asynchronous modex): not served;
// Open MPI and MPICH collect it in their first fence.
pmix_status_t OnDirectModex(const pmix_proc_t*, const pmix_info_t[], size_t, pmix_modex_cbfunc_t,
                            void*) {
  return PMIX_ERR_NOT_SUPPORTED;
}

// Waits for one of the library's operations that report through a callback.
class Completion {
 public:
  static void Done(pmix_status_t status, void* self) {
    auto* c = static_cast<Completion*>(self);
    std::lock_guard<std::mutex> lock(c->mu_);
    c->status_ = status;
    c->done_ = true;
    c->cv_.notify_all();
  }
  pmix_status_t Wait(pmix_status_t started) {
    if (started != PMIX_SUCCESS)
      return started == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : started;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return done_; });
    return status_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  pmix_status_t status_ = PMIX_SUCCESS;
};

std::string Why(const char* what, pmix_status_t status) {
  return std::string(what) + ": " + PMIx_Error_string(status);
}

void SetString(pmix_info_t* info, const char* key, const std::string& value) {
  PMIX_INFO_LOAD(info, key, value.c_str(), PMIX_STRING);
}
void SetUint32(pmix_info_t* info, const char* key, uint32_t value) {
  PMIX_INFO_LOAD(info, key, &value, PMIX_UINT32);
}
void SetUint16(pmix_info_t* info, const char* key, uint16_t value) {
  PMIX_INFO_LOAD(info, key, &value, PMIX_UINT16);
}
void SetRank(pmix_info_t* info, const char* key, pmix_rank_t value) {
  PMIX_INFO_LOAD(info, key, &value, PMIX_PROC_RANK);
}
void SetBool(pmix_info_t* info, const char* key, bool value) {
  PMIX_INFO_LOAD(info, key, &value, PMIX_BOOL);
}

// One rank's own facts, as the PMIX_PROC_DATA array the library expects
// (its rank first).
void SetProcData(pmix_info_t* info, const PmixStepLayout& layout, uint32_t rank) {
  constexpr size_t kFacts = 7;
  pmix_data_array_t* facts = nullptr;
  PMIX_DATA_ARRAY_CREATE(facts, kFacts, PMIX_INFO);
  auto* items = static_cast<pmix_info_t*>(facts->array);
  const uint32_t node = layout.NodeOf(rank);
  SetRank(&items[0], PMIX_RANK, rank);
  SetUint32(&items[1], PMIX_APPNUM, 0);
  SetUint16(&items[2], PMIX_LOCAL_RANK, static_cast<uint16_t>(layout.LocalRankOf(rank)));
  SetUint16(&items[3], PMIX_NODE_RANK, static_cast<uint16_t>(layout.LocalRankOf(rank)));
  SetUint32(&items[4], PMIX_NODEID, node);
  SetString(&items[5], PMIX_HOSTNAME, layout.node_name(node));
  SetRank(&items[6], PMIX_GLOBAL_RANK, rank);
  PMIX_INFO_LOAD(info, PMIX_PROC_DATA, facts, PMIX_DATA_ARRAY);
  PMIX_DATA_ARRAY_FREE(facts);
}

// What every client of the step reads about it (the keys Slurm's pmix
// plugin gives), then each rank's own facts.
pmix_status_t RegisterStep(const PmixStepLayout& layout, const std::string& job_dir,
                           const std::string& job_id) {
  char* node_map = nullptr;
  char* proc_map = nullptr;
  pmix_status_t rc = PMIx_generate_regex(layout.NodeList().c_str(), &node_map);
  if (rc == PMIX_SUCCESS) rc = PMIx_generate_ppn(layout.ProcessMap().c_str(), &proc_map);
  if (rc != PMIX_SUCCESS) return rc;
  std::vector<pmix_info_t> step(19 + layout.size());
  size_t n = 0;
  SetString(&step[n++], PMIX_JOBID, job_id);
  SetUint32(&step[n++], PMIX_UNIV_SIZE, layout.size());
  SetUint32(&step[n++], PMIX_JOB_SIZE, layout.size());
  SetUint32(&step[n++], PMIX_MAX_PROCS, layout.size());
  SetUint32(&step[n++], PMIX_APP_SIZE, layout.size());
  SetUint32(&step[n++], PMIX_APPNUM, 0);
  SetRank(&step[n++], PMIX_APPLDR, 0);
  SetUint32(&step[n++], PMIX_NUM_NODES, layout.node_count());
  SetBool(&step[n++], PMIX_SPAWNED, false);
  PMIX_INFO_LOAD(&step[n++], PMIX_NODE_MAP, node_map, PMIX_REGEX);
  PMIX_INFO_LOAD(&step[n++], PMIX_PROC_MAP, proc_map, PMIX_REGEX);
  SetString(&step[n++], PMIX_TMPDIR, job_dir);
  SetString(&step[n++], PMIX_NSDIR, job_dir);
  SetUint32(&step[n++], PMIX_LOCAL_SIZE, layout.local_size());
  SetUint32(&step[n++], PMIX_NODE_SIZE, layout.local_size());
  SetString(&step[n++], PMIX_LOCAL_PEERS, layout.LocalPeers());
  SetRank(&step[n++], PMIX_LOCALLDR, layout.local_leader());
  SetUint32(&step[n++], PMIX_NODEID, layout.node_index());
  SetString(&step[n++], PMIX_HOSTNAME, layout.node_name(layout.node_index()));
  for (uint32_t rank = 0; rank < layout.size(); ++rank) SetProcData(&step[n++], layout, rank);
  std::free(node_map);
  std::free(proc_map);

  Completion registered;
  rc = registered.Wait(PMIx_server_register_nspace(layout.nspace().c_str(),
                                                   static_cast<int>(layout.local_size()),
                                                   step.data(), n, Completion::Done, &registered));
  for (size_t i = 0; i < n; ++i) PMIX_INFO_DESTRUCT(&step[i]);
  return rc;
}

// Registers each local rank and gathers the variables that lead it here.
Result<wire::PmixHelperMessage> RegisterTasks(const PmixStepLayout& layout, uid_t uid, gid_t gid) {
  wire::PmixHelperMessage ready;
  for (uint32_t local = 0; local < layout.local_size(); ++local) {
    pmix_proc_t proc;
    PMIX_PROC_LOAD(&proc, layout.nspace().c_str(), layout.local_ranks()[local]);
    Completion registered;
    pmix_status_t rc = registered.Wait(
        PMIx_server_register_client(&proc, uid, gid, nullptr, Completion::Done, &registered));
    if (rc != PMIX_SUCCESS) return Internal(Why("PMIx_server_register_client", rc));
    char** env = nullptr;
    rc = PMIx_server_setup_fork(&proc, &env);
    if (rc != PMIX_SUCCESS) return Internal(Why("PMIx_server_setup_fork", rc));
    wire::PmixTaskVariables* task = ready.mutable_ready()->add_tasks();
    task->set_rank(proc.rank);
    for (char** e = env; e != nullptr && *e != nullptr; ++e) {
      task->add_variables(*e);
      std::free(*e);
    }
    std::free(env);
  }
  return ready;
}

// The step's directory: the server's rendezvous files and the clients' own
// (PMIX_TMPDIR), reachable by the tasks' owner alone.
Result<std::string> MakeStepDirectory(const wire::PmixSetup& setup) {
  std::string pattern =
      (setup.tmp_base().empty() ? std::string("/tmp") : setup.tmp_base()) + "/rota-pmix.XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    return IoError("cannot make a directory in " + setup.tmp_base() + ": " + std::strerror(errno));
  }
  const std::string job_dir = pattern + "/job";
  if (mkdir(job_dir.c_str(), 0700) != 0 || chown(pattern.c_str(), setup.uid(), setup.gid()) != 0 ||
      chown(job_dir.c_str(), setup.uid(), setup.gid()) != 0) {
    const int saved = errno;
    std::error_code ignored;
    std::filesystem::remove_all(pattern, ignored);
    return IoError("cannot prepare " + pattern + ": " + std::strerror(saved));
  }
  return pattern;
}

int Serve() {
  wire::PmixHelperMessage first;
  if (Status read = ReadStepMessage(kRotadFd, first, std::chrono::seconds(30)); !read.ok()) {
    return Fail("no step from rotad: " + read.message());
  }
  if (!first.has_setup()) return Fail("the first message is not the step");
  const wire::PmixSetup& setup = first.setup();
  Result<PmixStepLayout> layout = PmixStepLayout::From(setup);
  if (!layout.ok()) return Fail(layout.status().message());
  g_nspace = layout->nspace();
  g_size = layout->size();
  Result<std::string> dir = MakeStepDirectory(setup);
  if (!dir.ok()) return Fail(dir.status().message());
  const std::string job_dir = *dir + "/job";
  auto remove_dir = [&] {
    std::error_code ignored;
    std::filesystem::remove_all(*dir, ignored);
  };

  pmix_server_module_t module{};
  module.abort = OnAbort;
  module.fence_nb = OnFence;
  module.direct_modex = OnDirectModex;
  std::vector<pmix_info_t> init(6);
  SetString(&init[0], PMIX_SERVER_TMPDIR, *dir);
  SetString(&init[1], PMIX_SYSTEM_TMPDIR, *dir);
  SetBool(&init[2], PMIX_SERVER_TOOL_SUPPORT, false);
  SetBool(&init[3], PMIX_SERVER_SYSTEM_SUPPORT, false);
  SetString(&init[4], PMIX_SERVER_NSPACE,
            "slurm.pmix.server." + std::to_string(setup.job_id()) + "." +
                std::to_string(setup.step_id()));
  SetRank(&init[5], PMIX_SERVER_RANK, layout->node_index());
  pmix_status_t rc = PMIx_server_init(&module, init.data(), init.size());
  for (pmix_info_t& i : init) PMIX_INFO_DESTRUCT(&i);
  if (rc != PMIX_SUCCESS) {
    remove_dir();
    return Fail(Why("PMIx_server_init", rc));
  }
  const std::string job_id = std::to_string(setup.job_id()) + "." + std::to_string(setup.step_id());
  rc = RegisterStep(*layout, job_dir, job_id);
  Result<wire::PmixHelperMessage> ready =
      rc == PMIX_SUCCESS
          ? RegisterTasks(*layout, setup.uid(), setup.gid())
          : Result<wire::PmixHelperMessage>(Internal(Why("PMIx_server_register_nspace", rc)));
  int exit_code = 0;
  if (!ready.ok()) {
    exit_code = Fail(ready.status().message());
  } else {
    SendToRotad(*ready);
    // Until rotad closes its end: the step is over here.
    for (;;) {
      wire::PmixHelperMessage message;
      if (!ReadStepMessage(kRotadFd, message, std::chrono::milliseconds(-1)).ok()) break;
      if (message.has_fence_done()) OnFenceDone(message.fence_done());
    }
  }
  PMIx_server_finalize();
  remove_dir();
  return exit_code;
}

}  // namespace
}  // namespace rota::noded

// OpenPMIx keeps some of what it allocates until the process ends; the leak
// checker of sanitized builds is told so, and still checks the rest.
extern "C" const char* __lsan_default_suppressions() { return "leak:libpmix.so\n"; }

int main() {
  signal(SIGPIPE, SIG_IGN);
  rota::InitLogging("rota-pmix");
  return rota::noded::Serve();
}
