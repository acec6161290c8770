#pragma once

// srun's end of its step's I/O (docs/steps.md): it listens for one TCP
// connection from each of the step's nodes, which proves itself with the key
// srun gave them (HELLO), and then, in one poll loop, writes the tasks' output
// to srun's stdout and stderr or its -o/-e file (labelled with -l), sends its
// stdin to the tasks -i names (with --pty, raw keys and the window's size to
// task 0), merges the PMI-2 fences of the nodes, forwards the signals srun
// gets, ends the step early (-K, -W, ^C twice, a PMI abort, a failed launch)
// and collects each task's exit. The launch itself is NodeLaunches'
// (node_launches.h). Single-threaded.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/step/node_launches.h"
#include "cli/step/pmi_fence.h"
#include "cli/step/raw_terminal.h"
#include "cli/step/srun_options.h"
#include "cli/step/step_usage_tally.h"
#include "cli/step/task_output.h"
#include "common/status.h"
#include "rota.pb.h"
#include "step_rpc.pb.h"

namespace rota::cli {

// Where the relay reads srun's stdin (also its terminal under --pty) and
// writes the tasks' stdout and stderr.
struct SrunStreams {
  int in = 0;
  int out = 1;
  int err = 2;
};

// -o/-e naming one file for all the tasks (no per-task %-symbol): srun writes
// it, opened here (truncated unless --open-mode=append; one file when -e names
// the same as -o); srun's own stdout and stderr otherwise. nullopt: a file
// could not be opened, which is said on stderr.
std::optional<SrunStreams> OpenOutputFiles(const SrunOptions& options,
                                           const wire::CreateStepResponse& created);
// Closes what OpenOutputFiles opened.
void CloseOutputFiles(const SrunStreams& streams);

// What the step's tasks ended with, as their nodes told srun.
struct StepOutcome {
  std::map<uint32_t, uint32_t> exits;         // Task id -> wait status
  std::map<uint32_t, std::string> task_node;  // Task id -> its node, for those that exited
  std::set<uint32_t> out_of_memory;           // Tasks whose step cage saw the kernel's memory kill
  StepUsageTally usage;                       // From the tasks' EXIT frames
  bool failed = false;  // A launch failed, a node could not start its tasks, or contact was lost
};

// How srun ends after its step: its error line for each task that failed,
// its exit code (StepExitCode; 1 when the step failed without a task
// failing), and the wait status it reports the step's end with.
struct StepEnding {
  std::vector<std::string> task_errors;  // "srun: error: n1: task 3: Exited with exit code 2"
  int exit_code = 0;
  uint32_t wait_status = 0;
};
StepEnding StepEndingOf(const StepOutcome& outcome);

class SrunIoRelay {
 public:
  // Listens on `host` (an IPv4 address; else on every address) at a port the
  // kernel picks, with a fresh random key. REQUIRES: `options` and `step`
  // outlive the relay. Errors: no socket to listen on.
  static Result<std::unique_ptr<SrunIoRelay>> Listen(const std::string& host,
                                                     const SrunOptions& options,
                                                     const wire::JobStepRecord& step,
                                                     SrunStreams streams);
  ~SrunIoRelay();  // Closes the nodes' connections and the listening socket.
  SrunIoRelay(const SrunIoRelay&) = delete;
  SrunIoRelay& operator=(const SrunIoRelay&) = delete;

  // Where the nodes connect, and the key they prove themselves with: for
  // the launch request.
  uint16_t port() const { return port_; }
  const std::string& key() const { return key_; }

  // Relays until every task's exit has come, or nothing more can come (every
  // node answered and none is connected any more). `signals`: the read end
  // of a pipe srun's signal handlers write each signal's number to (-1:
  // none). Once.
  StepOutcome Run(StepNodes& nodes, int signals);

 private:
  SrunIoRelay(const SrunOptions& options, const wire::JobStepRecord& step, SrunStreams streams,
              int listening, uint16_t port, std::string key);

  // Follows the nodes' launch answers: prints failed launches and kills the
  // step then. False: nothing more will come.
  bool FollowLaunches();
  // Ends the step at once (SIGKILL to every node), saying `why` first.
  void Terminate(const std::string& why);
  void TakeSignals(int signals);
  // One frame from node connection `c`. False: the connection is done
  // (closed, or it failed to prove itself).
  bool TakeFrame(int c);
  void TakePmi(int c, const wire::PmiExchange& pmi);
  void TakeExit(int c, const wire::TaskIoFrame& frame);
  void ReadStdin(const std::vector<int>& targets, short revents);
  // The connections srun's stdin (and window size) go to, once all of them
  // are there.
  std::optional<std::vector<int>> StdinTargets();
  void SendStdin(const std::vector<int>& targets, const char* data, size_t n);
  void SendWindow(const std::vector<int>& targets);
  // What srun sends a node waits in `outgoing_` until its connection takes it.
  void Queue(int c, const std::string& message);
  void Flush(int c);
  void Drop(int c);

  const SrunOptions& options_;
  const wire::JobStepRecord& step_;
  const SrunStreams streams_;
  const int listening_;
  const uint16_t port_;
  const std::string key_;
  StepNodes* nodes_ = nullptr;  // During Run

  TaskOutput output_;
  StepOutcome outcome_;
  std::vector<int> connections_;
  std::set<int> greeted_;  // Connections that proved themselves
  std::map<int, std::string> node_of_;
  PmiFenceAggregator fences_;
  size_t reported_ = 0;    // Launch errors printed
  int greeted_total_ = 0;  // Nodes that connected (each before answering its launch)

  // stdin: srun's goes to one task (the node holding it) or to all of them.
  const bool stdin_all_;
  bool stdin_open_;
  const std::string stdin_node_;  // The node of the task reading it
  // What srun sends its nodes (stdin, window sizes) waits here until their
  // connection takes it, so that a task that does not read its stdin slows
  // srun's reading of it instead of growing a buffer (or blocking srun's
  // relay of output, which could be what the task waits for).
  std::map<int, std::string> outgoing_;
  size_t outgoing_bytes_ = 0;

  // --pty: srun's terminal passes keys through raw while the step runs; its
  // size changes follow (SIGWINCH) once task 0's node is there to take them.
  std::optional<RawTerminal> raw_;
  bool raw_tried_ = false;
  bool resized_ = false;

  // -K and -W end the step early.
  bool terminating_ = false;
  std::optional<std::chrono::steady_clock::time_point> first_exit_;
  std::optional<std::chrono::steady_clock::time_point> last_interrupt_;
  // Node answers counted when the step was killed: a node that answers
  // later may have started its tasks after the kill reached it.
  int killed_at_answers_ = 0;
};

}  // namespace rota::cli
