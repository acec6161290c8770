// Two nodes' PMIx servers (the built rota-pmix), driven as two rotad's step
// threads drive them, with the test standing for srun between them; each
// node's task is pmix_test_client (a real OpenPMIx client).
#include "noded/pmi/pmix_tasks.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "testing/temp_dir.h"

extern char** environ;

namespace rota::noded {
namespace {

std::string BinDir() {
  const char* dir = std::getenv("ROTA_BIN_DIR");
  return dir != nullptr ? dir : "bin";
}

wire::PmixSetup Step(uint32_t node, uint32_t tasks_each, const std::string& tmp) {
  wire::PmixSetup setup;
  setup.set_job_id(7);
  setup.set_step_id(0);
  for (const char* name : {"n1", "n2"}) {
    setup.add_nodes(name);
    setup.add_tasks_per_node(tasks_each);
  }
  setup.set_node_index(node);
  setup.set_uid(getuid());
  setup.set_gid(getgid());
  setup.set_tmp_base(tmp);
  return setup;
}

// A task: pmix_test_client with its server's variables, its stdout on a pipe.
struct Client {
  pid_t pid = -1;
  int out = -1;
};

Client StartClient(const PmixTasks& server, uint32_t local, const std::string& arg) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  for (const auto& [name, value] : server.TaskEnvironment(local)) env.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string program = BinDir() + "/pmix_test_client";
  std::string argument = arg;
  char* argv[] = {program.data(), argument.empty() ? nullptr : argument.data(), nullptr};
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return {};
  Client client;
  client.pid = fork();
  if (client.pid == 0) {
    dup2(pipe_fds[1], 1);
    execve(program.c_str(), argv, envp.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  client.out = pipe_fds[0];
  fcntl(client.out, F_SETFL, O_NONBLOCK);
  return client;
}

std::string Drain(int fd) {
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  return text;
}

// Stands for srun: polls both servers, gathers each fence from both and
// sends the gathered set back; returns the frames that were not fences.
class FakeSrun {
 public:
  explicit FakeSrun(std::vector<PmixTasks*> nodes) : nodes_(std::move(nodes)) {}

  std::vector<wire::PmiExchange> Poll(std::chrono::milliseconds timeout) {
    std::vector<pollfd> fds;
    std::vector<size_t> firsts;
    for (PmixTasks* node : nodes_) firsts.push_back(node->AddPollFds(fds));
    poll(fds.data(), fds.size(), static_cast<int>(timeout.count()));
    std::vector<wire::PmiExchange> others;
    for (size_t n = 0; n < nodes_.size(); ++n) {
      for (wire::TaskIoFrame& frame : nodes_[n]->OnPolled(fds, firsts[n])) {
        if (frame.pmi().kind() != wire::PmiExchange::FENCE) {
          others.push_back(frame.pmi());
          continue;
        }
        for (const wire::PmiPair& pair : frame.pmi().pairs()) gathered_[pair.key()] = pair.value();
        if (++entered_ < nodes_.size()) continue;
        wire::PmiExchange done;
        done.set_kind(wire::PmiExchange::FENCE_DONE);
        done.set_round(frame.pmi().round());
        for (const auto& [key, value] : gathered_) {
          wire::PmiPair* pair = done.add_pairs();
          pair->set_key(key);
          pair->set_value(value);
        }
        for (PmixTasks* node : nodes_) node->OnSrunFrame(done);
        ++fences_;
        entered_ = 0;
        gathered_.clear();
      }
    }
    return others;
  }
  int fences() const { return fences_; }

 private:
  std::vector<PmixTasks*> nodes_;
  std::map<std::string, std::string> gathered_;
  size_t entered_ = 0;
  int fences_ = 0;
};

bool Exited(Client& client, int* status) {
  if (client.pid <= 0) return true;
  if (waitpid(client.pid, status, WNOHANG) != client.pid) return false;
  client.pid = -1;
  return true;
}

TEST(PmixTasksTest, AFenceCarriesEachNodesValuesToTheOther) {
  testing::TempDir tmp;
  Result<std::unique_ptr<PmixTasks>> n1 =
      PmixTasks::Start(BinDir() + "/rota-pmix", Step(0, 2, tmp.path()));
  ASSERT_TRUE(n1.ok()) << n1.status().message();
  Result<std::unique_ptr<PmixTasks>> n2 =
      PmixTasks::Start(BinDir() + "/rota-pmix", Step(1, 2, tmp.path()));
  ASSERT_TRUE(n2.ok()) << n2.status().message();

  std::map<std::string, std::string> vars;
  for (const auto& [name, value] : (*n2)->TaskEnvironment(1)) vars[name] = value;
  EXPECT_EQ(vars["PMIX_NAMESPACE"], "slurm.pmix.7.0");
  EXPECT_EQ(vars["PMIX_RANK"], "3");
  EXPECT_EQ((*n2)->TaskEnd(0), -1);

  std::vector<Client> clients = {StartClient(**n1, 0, ""), StartClient(**n1, 1, ""),
                                 StartClient(**n2, 0, ""), StartClient(**n2, 1, "")};
  FakeSrun srun({n1->get(), n2->get()});
  std::vector<int> status(clients.size(), -1);
  std::string out;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  size_t done = 0;
  while (done < clients.size() && std::chrono::steady_clock::now() < give_up) {
    EXPECT_TRUE(srun.Poll(std::chrono::milliseconds(50)).empty());
    done = 0;
    for (size_t c = 0; c < clients.size(); ++c) done += Exited(clients[c], &status[c]) ? 1 : 0;
  }
  for (Client& client : clients) {
    if (client.pid > 0) {
      kill(client.pid, SIGKILL);
      waitpid(client.pid, nullptr, 0);
    }
    out += Drain(client.out);
    close(client.out);
  }
  ASSERT_EQ(done, clients.size()) << out;
  for (size_t c = 0; c < clients.size(); ++c) {
    EXPECT_TRUE(WIFEXITED(status[c]) && WEXITSTATUS(status[c]) == 0) << c << ": " << out;
  }
  EXPECT_GE(srun.fences(), 1);
  for (const char* line : {"rank=0 size=4 ns=slurm.pmix.7.0 host=n1 peers=0,1 saw=3/3 ok\n",
                           "rank=1 size=4 ns=slurm.pmix.7.0 host=n1 peers=0,1 saw=3/3 ok\n",
                           "rank=2 size=4 ns=slurm.pmix.7.0 host=n2 peers=2,3 saw=3/3 ok\n",
                           "rank=3 size=4 ns=slurm.pmix.7.0 host=n2 peers=2,3 saw=3/3 ok\n"}) {
    EXPECT_NE(out.find(line), std::string::npos) << line << " in:\n" << out;
  }
}

TEST(PmixTasksTest, AnAbortGoesToSrunAndTheServerCleansUp) {
  testing::TempDir tmp;
  Result<std::unique_ptr<PmixTasks>> n1 =
      PmixTasks::Start(BinDir() + "/rota-pmix", Step(0, 1, tmp.path()));
  ASSERT_TRUE(n1.ok()) << n1.status().message();
  Result<std::unique_ptr<PmixTasks>> n2 =
      PmixTasks::Start(BinDir() + "/rota-pmix", Step(1, 1, tmp.path()));
  ASSERT_TRUE(n2.ok()) << n2.status().message();
  // The step's directories, one per node, while the servers run.
  size_t dirs = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(tmp.path())) ++dirs;
  EXPECT_EQ(dirs, 2u);

  Client rank0 = StartClient(**n1, 0, "abort");
  Client rank1 = StartClient(**n2, 0, "abort");
  FakeSrun srun({n1->get(), n2->get()});
  std::vector<wire::PmiExchange> aborts;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (aborts.empty() && std::chrono::steady_clock::now() < give_up) {
    aborts = srun.Poll(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(aborts.size(), 1u);
  EXPECT_EQ(aborts[0].kind(), wire::PmiExchange::ABORT);
  EXPECT_EQ(aborts[0].task(), 1u);
  EXPECT_EQ(aborts[0].message(), "rank 1 gives up");
  // srun ends the step: rank 0, waiting in its fence, is killed.
  for (Client* c : {&rank0, &rank1}) {
    kill(c->pid, SIGKILL);
    waitpid(c->pid, nullptr, 0);
    close(c->out);
  }
  n1->reset();
  n2->reset();
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path()));
}

TEST(PmixTasksTest, AServerThatCannotServeTheStepSaysWhy) {
  Result<std::unique_ptr<PmixTasks>> n1 =
      PmixTasks::Start(BinDir() + "/rota-pmix", Step(0, 1, "/nonexistent/place"));
  ASSERT_FALSE(n1.ok());
  EXPECT_NE(n1.status().message().find("cannot make a directory in /nonexistent/place"),
            std::string::npos)
      << n1.status().message();
  Result<std::unique_ptr<PmixTasks>> missing =
      PmixTasks::Start("/nonexistent/rota-pmix", Step(0, 1, "/tmp"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot run"), std::string::npos);
}

}  // namespace
}  // namespace rota::noded
