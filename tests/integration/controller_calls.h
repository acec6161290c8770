#pragma once
// What integration tests without node daemons do in their place: register
// nodes, report a job's script ended, and wait for a job's state; shared by
// the controller and accounting tests.

#include <gtest/gtest.h>

#include <chrono>
#include <initializer_list>
#include <string>
#include <thread>

#include "api/methods.h"
#include "cli/client/controller_client.h"
#include "common/strings.h"
#include "rota.pb.h"
#include "tests/integration/controller_process.h"

namespace rota::testing {

// Registers `nodes` as if their node daemons had started.
inline void RegisterFakeNodes(const ControllerProcess& ctld,
                              std::initializer_list<const char*> nodes) {
  auto client = cli::ControllerClient::Create(ctld.conf());
  ASSERT_TRUE(client.ok()) << client.status().message();
  for (const char* node : nodes) {
    wire::NodeRegisterRequest req;
    req.set_node(node);
    req.set_boot_time(1);
    wire::Empty resp;
    ASSERT_TRUE((*client)->Call(api::kNodeRegister, req, &resp).ok());
  }
}

// Reports `job_id`'s batch script ended with `wait_status`, as its node would.
inline void ReportJobExit(const ControllerProcess& ctld, uint32_t job_id, uint32_t wait_status) {
  auto client = cli::ControllerClient::Create(ctld.conf());
  ASSERT_TRUE(client.ok());
  wire::JobExitedRequest req;
  req.set_job_id(job_id);
  req.set_wait_status(wait_status);
  wire::Empty resp;
  ASSERT_TRUE((*client)->Call(api::kJobExited, req, &resp).ok());
}

// Polls squeue until `job` shows `state` (%T), or gives up after 5 s.
inline bool WaitForJobState(const ControllerProcess& ctld, const std::string& job,
                            const std::string& state) {
  for (int i = 0; i < 250; ++i) {
    CommandResult r = ctld.Run("squeue -h -t all -o %T -j " + job, false);
    if (Trim(r.out) == state) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// squeue's `format` for `job` once it reads `expected` (10 s at most); returns
// the last output.
inline std::string SqueueUntil(const ControllerProcess& ctld, const std::string& job,
                               const std::string& format, const std::string& expected) {
  std::string out;
  for (int i = 0; i < 200; ++i) {
    out = Trim(ctld.Run("squeue -h -t all -o " + format + " -j " + job, false).out);
    if (out == expected) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return out;
}

// Runs sacct with `sacct_args` until it prints `expected` (records travel
// asynchronously), or gives up after 10 s; returns the last output.
inline std::string SacctUntil(const ControllerProcess& ctld, const std::string& sacct_args,
                              const std::string& expected) {
  std::string out;
  for (int i = 0; i < 200; ++i) {
    out = ctld.Run("sacct " + sacct_args).out;
    if (out == expected) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return out;
}

}  // namespace rota::testing
