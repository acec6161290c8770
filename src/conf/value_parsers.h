#pragma once

// Parsers for the kinds of values configuration keys take. Each one returns a
// Status whose message completes the sentence "Key=Value ...", e.g.
// "is not a valid time limit", so the caller can report
//   slurm.conf line 44: MaxTime=one-day is not a valid time limit

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/duration.h"
#include "common/memory_size.h"
#include "common/status.h"
#include "common/tres.h"

namespace rota::conf {

Status ParseUint32Value(std::string_view v, uint32_t& out);
Status ParsePortValue(std::string_view v, uint16_t& out);
// Whole seconds ("300"); "INFINITE"/"UNLIMITED" are not seconds.
Status ParseSecondsValue(std::string_view v, DurationSecs& out);
// Slurm's time format; a bare number is minutes.
Status ParseTimeValue(std::string_view v, DurationSecs& out);
Status ParseBoolValue(std::string_view v, bool& out);
Status ParseMemoryValue(std::string_view v, MemoryMb& out);
Status ParseTresWeightsValue(std::string_view v, TresWeights& out);
// Comma-separated list; empty pieces are dropped.
std::vector<std::string> ParseListValue(std::string_view v);
// One of `choices` (case-insensitive); stored with the choice's spelling.
using Choices = std::vector<std::string_view>;
Status ParseChoiceValue(std::string_view v, const Choices& choices, std::string& out);
// A comma-separated list whose items must each be one of `choices`.
Status ParseChoiceListValue(std::string_view v, const Choices& choices,
                            std::vector<std::string>& out);
// "0-3,8,10-11" -> {0,1,2,3,8,10,11}, sorted and unique.
Status ParseIndexListValue(std::string_view v, std::vector<uint32_t>& out);

}  // namespace rota::conf
