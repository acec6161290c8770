#pragma once

// Signal names as scancel --signal and sbatch --signal take them: "USR1",
// "SIGUSR1", or a number.

#include <optional>
#include <string_view>

namespace rota::cli {

std::optional<int> ParseSignal(std::string_view text);

}  // namespace rota::cli
