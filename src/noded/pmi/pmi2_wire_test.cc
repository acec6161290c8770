#include "noded/pmi/pmi2_wire.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

TEST(Pmi2WireTest, EncodesLengthThenCommand) {
  Pmi2Message m{"kvs-put-response", {{"rc", "0"}}, false};
  EXPECT_EQ(EncodePmi2(m), "26    cmd=kvs-put-response;rc=0;");
}

TEST(Pmi2WireTest, DoublesSemicolonsInValues) {
  Pmi2Message m{"kvs-get-response", {{"value", "a;b"}}, false};
  const std::string wire = EncodePmi2(m);
  EXPECT_EQ(wire.substr(6), "cmd=kvs-get-response;value=a;;b;");
  Result<Pmi2Message> back = ParsePmi2Command(wire.substr(6));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->Get("value"), "a;b");
}

TEST(Pmi2WireTest, ParsesCommandAttributesInOrder) {
  Result<Pmi2Message> m = ParsePmi2Command("cmd=fullinit;pmijobid=7.0;pmirank=3;threaded=FALSE;");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->command, "fullinit");
  ASSERT_EQ(m->attributes.size(), 3u);
  EXPECT_EQ(m->attributes[1].first, "pmirank");
  EXPECT_EQ(m->Get("pmirank"), "3");
  EXPECT_EQ(m->Get("missing", "x"), "x");
  EXPECT_FALSE(m->line_form);
}

TEST(Pmi2WireTest, ValuesMayHoldEqualsAndEmptiness) {
  Result<Pmi2Message> m = ParsePmi2Command("cmd=kvs-put;key=k;value=a=b;empty=;");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->Get("value"), "a=b");
  EXPECT_EQ(m->Find("empty"), std::optional<std::string>(""));
}

TEST(Pmi2WireTest, RefusesMalformedCommands) {
  EXPECT_FALSE(ParsePmi2Command("key=k;cmd=kvs-put;").ok());  // cmd not first
  EXPECT_FALSE(ParsePmi2Command("cmd=kvs-put;key").ok());     // no '='
  EXPECT_FALSE(ParsePmi2Command("cmd=kvs-put;key=k").ok());   // no ending ';'
  EXPECT_FALSE(ParsePmi2Command("").ok());
}

TEST(Pmi2WireTest, LineFormRoundTrips) {
  Result<Pmi2Message> m = ParsePmi1Line("cmd=init pmi_version=2 pmi_subversion=0");
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->line_form);
  EXPECT_EQ(m->command, "init");
  EXPECT_EQ(m->Get("pmi_version"), "2");
  Pmi2Message answer{"response_to_init", {{"pmi_version", "2"}, {"rc", "0"}}, true};
  EXPECT_EQ(EncodePmi2(answer), "cmd=response_to_init pmi_version=2 rc=0\n");
  EXPECT_FALSE(ParsePmi1Line("pmi_version=2").ok());
}

TEST(Pmi2WireTest, ReaderCutsAStreamFedInPieces) {
  Pmi2Reader reader;
  const std::string stream = "cmd=init pmi_version=2 pmi_subversion=0\n" +
                             EncodePmi2({"fullinit", {{"pmirank", "1"}}, false}) +
                             EncodePmi2({"kvs-fence", {}, false});
  std::vector<Pmi2Message> got;
  for (char c : stream) {  // One byte at a time: every boundary is a partial read
    reader.Feed(std::string_view(&c, 1));
    while (std::optional<Result<Pmi2Message>> m = reader.Next()) {
      ASSERT_TRUE(m->ok()) << m->status().message();
      got.push_back(**m);
    }
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(got[0].line_form);
  EXPECT_EQ(got[0].command, "init");
  EXPECT_EQ(got[1].command, "fullinit");
  EXPECT_EQ(got[1].Get("pmirank"), "1");
  EXPECT_EQ(got[2].command, "kvs-fence");
  EXPECT_FALSE(reader.Next().has_value());
}

TEST(Pmi2WireTest, ReaderRefusesWhatIsNotPmi) {
  Pmi2Reader bad_length;
  bad_length.Feed("12x   cmd=x;");
  std::optional<Result<Pmi2Message>> m = bad_length.Next();
  ASSERT_TRUE(m.has_value());
  EXPECT_FALSE(m->ok());

  Pmi2Reader too_long;  // A line that never ends
  too_long.Feed("cmd=" + std::string(Pmi2Reader::kMaxCommandBytes + 1, 'x'));
  m = too_long.Next();
  ASSERT_TRUE(m.has_value());
  EXPECT_FALSE(m->ok());
}

}  // namespace
}  // namespace rota::noded
