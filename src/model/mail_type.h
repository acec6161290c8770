#pragma once

// --mail-type: which of a job's events are mailed to its --mail-user through
// slurm.conf's MailProg, in Slurm's names and Slurm's printed order.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rota::model {

// One bit per event.
enum MailEvent : uint32_t {
  kMailBegin = 1 << 0,
  kMailEnd = 1 << 1,
  kMailFail = 1 << 2,
  kMailRequeue = 1 << 3,
  kMailTimeLimit = 1 << 4,    // TIME_LIMIT: the limit reached
  kMailTimeLimit90 = 1 << 5,  // TIME_LIMIT_90 ...
  kMailTimeLimit80 = 1 << 6,
  kMailTimeLimit50 = 1 << 7,
  kMailArrayTasks = 1 << 8,  // ARRAY_TASKS: each task of an array mails for itself
  kMailInvalidDepend = 1 << 9,
  kMailStageOut = 1 << 10,
};

// "BEGIN,END", "ALL" (BEGIN, END, FAIL, INVALID_DEPEND, REQUEUE, STAGE_OUT),
// "NONE" (0); case-insensitive. Unknown words are ignored as Slurm ignores
// them; none when no word is known and NONE is not among them (Slurm's
// "invalid --mail-type").
std::optional<uint32_t> ParseMailType(std::string_view text);

// Slurm's form for scontrol: "NONE", else the events in Slurm's order
// (ARRAY_TASKS,INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT,TIME_LIMIT_50,
// TIME_LIMIT_80,TIME_LIMIT_90,TIME_LIMIT).
std::string FormatMailType(uint32_t events);

// The words MailProg's subject uses for one event: "Began", "Ended",
// "Failed", "Requeued", "Reached time limit", "Reached 90% of time limit",
// "Invalid dependency", "Staged Out".
std::string_view MailEventWords(MailEvent event);

}  // namespace rota::model
