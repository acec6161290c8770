#pragma once

// srun --pty's own terminal: while the task's pseudo-terminal does the line
// editing, echo and ^C, srun's terminal passes every byte through untouched
// (raw mode), and is put back as it was on every way out: the object's end,
// exit(), and the signals that would end srun without either.

#include <cstdint>
#include <optional>

namespace rota::cli {

struct WindowSize {
  uint32_t rows = 0;
  uint32_t cols = 0;
};

// The size of the terminal on `fd`; nullopt when `fd` is not a terminal.
std::optional<WindowSize> TerminalWindowSize(int fd);

class RawTerminal {
 public:
  // Puts the terminal on `fd` in raw mode; nothing (and no object) when `fd`
  // is not a terminal or its mode cannot be changed. One at a time per process.
  static std::optional<RawTerminal> Enter(int fd);

  RawTerminal(RawTerminal&& other) noexcept;
  RawTerminal& operator=(RawTerminal&& other) noexcept;  // Restores this one first
  RawTerminal(const RawTerminal&) = delete;
  ~RawTerminal();  // Restore()

  // Puts the terminal back as it was (once; later calls do nothing).
  void Restore();

 private:
  explicit RawTerminal(int fd) : fd_(fd) {}
  int fd_ = -1;  // -1: moved from or restored
};

}  // namespace rota::cli
