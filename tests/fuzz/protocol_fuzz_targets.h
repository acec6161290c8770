#pragma once

// Fuzz targets for everything a daemon decodes from a peer before it touches
// state: the RPC frame decoders (rpc/frame.h), credentials (auth/), the
// request body of every method of rotactld, rotad and rotadbd with the pure
// checks run on it, the rotad <-> rota-stepd channel (noded/stepd/step_channel.h),
// and the PMI-2 wire and session that MPI tasks speak (noded/pmi/pmi2_*.h).
//
// Each target takes arbitrary bytes and returns 0; a crash, a sanitizer
// report or a failed invariant (ROTA_FUZZ_CHECK: abort with a message) is a
// finding. The same functions run under libFuzzer (libfuzzer_main.cc, `make
// fuzz`, clang only) and in the normal test suite (protocol_fuzz_test.cc:
// the checked-in corpus plus seeded mutations, under gcc's sanitizers).
// Deterministic: no clock, no unseeded randomness.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace google::protobuf {
class MessageLite;
}

namespace rota::fuzz {

using TargetFunction = int (*)(const uint8_t* data, size_t size);

struct FuzzTarget {
  const char* name;  // Also the corpus folder: tests/fuzz/corpus/<name>/
  TargetFunction run;
};

// Every target, in a fixed order.
std::span<const FuzzTarget> AllTargets();
// The target called `name`, or nullptr.
const FuzzTarget* FindTarget(std::string_view name);

// Small valid inputs for target `name` (the seed corpus is written from these
// by protocol_fuzz_seeds, then checked in).
std::vector<std::string> SeedInputs(std::string_view name);

// A method a daemon serves, and the request message its handler parses.
struct MethodMessage {
  uint16_t method;
  const char* daemon;  // "rotactld", "rotad", "rotadbd"
  std::function<std::unique_ptr<google::protobuf::MessageLite>()> make_request;
};
// Every method id of api/methods.h and api/dbd_methods.h.
std::span<const MethodMessage> AllMethods();

// A small valid request body for `method` (serialized), for seeds and for
// tests that send real requests to live daemons.
std::string ExampleRequestBody(uint16_t method);

}  // namespace rota::fuzz
