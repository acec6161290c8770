#include "noded/stepd/process_title.h"

#include <gtest/gtest.h>

#include <string>

namespace rota::noded {
namespace {

// An argument block as the kernel lays it out: strings back to back.
struct Arguments {
  explicit Arguments(const std::string& text) : block(text) {
    argv[0] = block.data();
    int argc_now = 1;
    for (size_t i = 0; i + 1 < block.size(); ++i) {
      if (block[i] == '\0') argv[argc_now++] = &block[i + 1];
    }
    argc = argc_now;
  }
  std::string block;  // With its NULs
  char* argv[8] = {};
  int argc = 0;
};

TEST(ProcessTitleTest, TitleReplacesTheArgumentsAndIsCutToTheirSpace) {
  Arguments args(std::string("/bin/prog\0-f\0conf\0-S\0", 21));
  ASSERT_EQ(args.argc, 4);
  SetProcessTitle(args.argc, args.argv, "prog -j 7");
  EXPECT_EQ(args.block, std::string("prog -j 7\0\0\0\0\0\0\0\0\0\0\0\0", 21));

  SetProcessTitle(args.argc, args.argv, "a title far longer than the arguments were");
  EXPECT_EQ(args.block, std::string("a title far longer t\0", 21));
}

}  // namespace
}  // namespace rota::noded
