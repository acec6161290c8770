#include "model/mail_type.h"

#include <gtest/gtest.h>

namespace rota::model {
namespace {

TEST(MailTypeTest, ParsesSlurmsWords) {
  EXPECT_EQ(ParseMailType("BEGIN"), kMailBegin);
  EXPECT_EQ(ParseMailType("begin,End"), kMailBegin | kMailEnd);
  EXPECT_EQ(ParseMailType("TIME_LIMIT_90,TIME_LIMIT"), kMailTimeLimit90 | kMailTimeLimit);
  EXPECT_EQ(ParseMailType("ALL"),
            kMailBegin | kMailEnd | kMailFail | kMailInvalidDepend | kMailRequeue | kMailStageOut);
  EXPECT_EQ(ParseMailType("NONE"), 0u);
  // Unknown words are dropped; nothing known at all is an error.
  EXPECT_EQ(ParseMailType("END,SOMETIMES"), kMailEnd);
  EXPECT_EQ(ParseMailType("SOMETIMES"), std::nullopt);
  EXPECT_EQ(ParseMailType(""), std::nullopt);
}

TEST(MailTypeTest, FormatsInSlurmsOrder) {
  EXPECT_EQ(FormatMailType(0), "NONE");
  EXPECT_EQ(FormatMailType(kMailEnd | kMailBegin), "BEGIN,END");
  EXPECT_EQ(FormatMailType(*ParseMailType("ALL")),
            "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT");
  EXPECT_EQ(FormatMailType(kMailTimeLimit | kMailTimeLimit50 | kMailArrayTasks),
            "ARRAY_TASKS,TIME_LIMIT_50,TIME_LIMIT");
}

TEST(MailTypeTest, SubjectWords) {
  EXPECT_EQ(MailEventWords(kMailBegin), "Began");
  EXPECT_EQ(MailEventWords(kMailFail), "Failed");
  EXPECT_EQ(MailEventWords(kMailTimeLimit80), "Reached 80% of time limit");
}

}  // namespace
}  // namespace rota::model
