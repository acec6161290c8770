#include "noded/stepd/task_prolog_output.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

using Env = std::vector<std::string>;

TEST(TaskPrologOutputTest, ExportAddsOrReplacesAndUnsetRemoves) {
  Env env{"PATH=/bin", "HOME=/home/u", "HOMER=simpson", "OLD=1"};
  std::string printed = ApplyTaskPrologOutput(
      "export SCRATCH=/scratch/job 7\n"
      "export  PATH = /opt/bin:/bin\n"
      "unset HOME\n"
      "unset   OLD  \n",
      env);
  EXPECT_EQ(printed, "");
  // The value keeps its blanks (everything after '='); the name loses them.
  EXPECT_EQ(env, (Env{"HOMER=simpson", "SCRATCH=/scratch/job 7", "PATH= /opt/bin:/bin"}));
}

TEST(TaskPrologOutputTest, PrintLinesGoToTheTaskInOrder) {
  Env env;
  EXPECT_EQ(ApplyTaskPrologOutput("print hello\nexport A=b\nprint   two  words\nprint last", env),
            "hello\ntwo  words\nlast\n");
  EXPECT_EQ(env, (Env{"A=b"}));
}

TEST(TaskPrologOutputTest, OtherAndMalformedLinesAreIgnored) {
  Env env{"KEEP=1"};
  EXPECT_EQ(ApplyTaskPrologOutput("hello world\n"
                                  "exporter X=1\n"
                                  "export NOEQUALS\n"
                                  "export =value\n"
                                  "unset\n"
                                  "unset \n"
                                  "  export INDENTED=1\n"
                                  "printf no\n"
                                  "\n",
                                  env),
            "");
  EXPECT_EQ(env, (Env{"KEEP=1"}));
}

TEST(TaskPrologOutputTest, ExportingTheSameNameTwiceKeepsTheLast) {
  Env env{"X=0"};
  ApplyTaskPrologOutput("export X=1\nexport X=2\n", env);
  EXPECT_EQ(env, (Env{"X=2"}));
}

}  // namespace
}  // namespace rota::noded
