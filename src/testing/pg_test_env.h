#pragma once

// One throwaway PostgreSQL server per test binary (pg_server.h): started by
// the first test that asks for it, stopped when the binary's tests end (a
// gtest Environment). A binary run for a single test that does not ask never
// starts one. When the server cannot start, every test asking fails: the
// PostgreSQL backend is part of the build (scripts/install-deps.sh installs
// the server), so a missing server is a failure, never a skip.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/pg_server.h"

namespace rota::testing {

class PostgresEnvironment : public ::testing::Environment {
 public:
  // The running server, or nullptr (then StartError() says why).
  static PostgresServer* Server() {
    State& s = state();
    if (s.server == nullptr && s.error.empty()) {
      s.server = std::make_unique<PostgresServer>();
      s.error = s.server->Start();
      if (!s.error.empty()) s.server.reset();
    }
    return s.server.get();
  }
  static const std::string& StartError() { return state().error; }

  void TearDown() override { state().server.reset(); }

 private:
  struct State {
    std::unique_ptr<PostgresServer> server;
    std::string error;
  };
  static State& state() {
    static State s;
    return s;
  }
};

inline ::testing::Environment* const kPostgresEnvironment =
    ::testing::AddGlobalTestEnvironment(new PostgresEnvironment);

}  // namespace rota::testing
