#include "rpc/frame.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rota::rpc {
namespace {

using ::testing::HasSubstr;

bool operator==(const RequestFrame& a, const RequestFrame& b) {
  return a.method == b.method && a.request_id == b.request_id && a.credential == b.credential &&
         a.body == b.body;
}
bool operator==(const ResponseFrame& a, const ResponseFrame& b) {
  return a.status == b.status && a.request_id == b.request_id && a.body == b.body;
}

std::vector<RequestFrame> SampleRequests() {
  std::string binary_body;
  for (int i = 0; i < 300; ++i) binary_body.push_back(static_cast<char>(i));
  return {
      {.method = 1, .request_id = 1, .credential = "cred", .body = "hello"},
      {.method = 0xffff, .request_id = 0xfedcba9876543210ull, .credential = "", .body = ""},
      {.method = 7, .request_id = 3, .credential = std::string(100, 'c'), .body = binary_body},
      {.method = 2, .request_id = 4, .credential = "", .body = "x"},
      {.method = 3, .request_id = 5, .credential = "y", .body = ""},
  };
}

std::vector<ResponseFrame> SampleResponses() {
  return {
      {.status = 0, .request_id = 9, .body = "answer"},
      {.status = 0, .request_id = 10, .body = ""},
      {.status = 5, .request_id = 0xffffffffffffffffull, .body = "permission denied: not yours"},
      {.status = 0, .request_id = 12, .body = std::string(1000, '\0')},
  };
}

TEST(FrameTest, RequestHeaderLayoutIsLittleEndian) {
  std::string frame = EncodeRequestFrame(
      {.method = 0x0102, .request_id = 0x0807060504030201ull, .credential = "ab", .body = "xyz"});
  ASSERT_EQ(frame.size(), kRequestHeaderSize + 5);
  EXPECT_EQ(frame.substr(0, 4), "ROTA");
  EXPECT_EQ(frame.substr(4, 2), std::string("\x01\x00", 2));  // version 1
  EXPECT_EQ(frame.substr(6, 2), std::string("\x02\x01", 2));  // method
  EXPECT_EQ(frame.substr(8, 8), std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  EXPECT_EQ(frame.substr(16, 4), std::string("\x02\x00\x00\x00", 4));
  EXPECT_EQ(frame.substr(20, 4), std::string("\x03\x00\x00\x00", 4));
  EXPECT_EQ(frame.substr(24), "abxyz");
}

TEST(FrameTest, ResponseHeaderLayoutIsLittleEndian) {
  std::string frame = EncodeResponseFrame({.status = 4, .request_id = 258, .body = "no"});
  ASSERT_EQ(frame.size(), kResponseHeaderSize + 2);
  EXPECT_EQ(frame.substr(0, 4), "ROTA");
  EXPECT_EQ(frame.substr(4, 2), std::string("\x01\x00", 2));
  EXPECT_EQ(frame.substr(6, 2), std::string("\x04\x00", 2));
  EXPECT_EQ(frame.substr(8, 8), std::string("\x02\x01\0\0\0\0\0\0", 8));
  EXPECT_EQ(frame.substr(16, 4), std::string("\x02\x00\x00\x00", 4));
  EXPECT_EQ(frame.substr(20), "no");
}

TEST(FrameTest, RequestsDecodeIdenticallyAtEverySplitPoint) {
  const std::vector<RequestFrame> expected = SampleRequests();
  std::string stream;
  for (const RequestFrame& frame : expected) stream += EncodeRequestFrame(frame);
  for (size_t split = 0; split <= stream.size(); ++split) {
    RequestDecoder decoder;
    std::vector<RequestFrame> got;
    ASSERT_TRUE(decoder.Feed(std::string_view(stream).substr(0, split), &got).ok());
    ASSERT_TRUE(decoder.Feed(std::string_view(stream).substr(split), &got).ok());
    ASSERT_EQ(got.size(), expected.size()) << "split at " << split;
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(got[i] == expected[i]) << split;
    EXPECT_FALSE(decoder.mid_frame());
  }
}

TEST(FrameTest, RequestsDecodeIdenticallyAtEveryPairOfSplitPoints) {
  // Three pieces: catches state kept wrongly across two boundaries (header to
  // credential to body) that a single split cannot reach.
  const std::vector<RequestFrame> expected = {SampleRequests()[0], SampleRequests()[3]};
  std::string stream;
  for (const RequestFrame& frame : expected) stream += EncodeRequestFrame(frame);
  for (size_t a = 0; a <= stream.size(); ++a) {
    for (size_t b = a; b <= stream.size(); ++b) {
      RequestDecoder decoder;
      std::vector<RequestFrame> got;
      std::string_view s(stream);
      ASSERT_TRUE(decoder.Feed(s.substr(0, a), &got).ok());
      ASSERT_TRUE(decoder.Feed(s.substr(a, b - a), &got).ok());
      ASSERT_TRUE(decoder.Feed(s.substr(b), &got).ok());
      ASSERT_EQ(got.size(), 2u) << a << "," << b;
      EXPECT_TRUE(got[0] == expected[0] && got[1] == expected[1]) << a << "," << b;
    }
  }
}

TEST(FrameTest, RequestsDecodeOneByteAtATime) {
  const std::vector<RequestFrame> expected = SampleRequests();
  std::string stream;
  for (const RequestFrame& frame : expected) stream += EncodeRequestFrame(frame);
  RequestDecoder decoder;
  std::vector<RequestFrame> got;
  for (char c : stream) ASSERT_TRUE(decoder.Feed(std::string_view(&c, 1), &got).ok());
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(got[i] == expected[i]);
}

TEST(FrameTest, ResponsesDecodeIdenticallyAtEverySplitPoint) {
  const std::vector<ResponseFrame> expected = SampleResponses();
  std::string stream;
  for (const ResponseFrame& frame : expected) stream += EncodeResponseFrame(frame);
  for (size_t split = 0; split <= stream.size(); ++split) {
    ResponseDecoder decoder;
    std::vector<ResponseFrame> got;
    ASSERT_TRUE(decoder.Feed(std::string_view(stream).substr(0, split), &got).ok());
    ASSERT_TRUE(decoder.Feed(std::string_view(stream).substr(split), &got).ok());
    ASSERT_EQ(got.size(), expected.size()) << "split at " << split;
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(got[i] == expected[i]) << split;
  }
}

TEST(FrameTest, MidFrameTracksPartialFrames) {
  std::string frame = EncodeRequestFrame(SampleRequests()[0]);
  RequestDecoder decoder;
  std::vector<RequestFrame> got;
  EXPECT_FALSE(decoder.mid_frame());
  ASSERT_TRUE(decoder.Feed(std::string_view(frame).substr(0, 1), &got).ok());
  EXPECT_TRUE(decoder.mid_frame());
  ASSERT_TRUE(decoder.Feed(std::string_view(frame).substr(1, kRequestHeaderSize - 1), &got).ok());
  EXPECT_TRUE(decoder.mid_frame());  // Header done, payload pending.
  ASSERT_TRUE(decoder.Feed(std::string_view(frame).substr(kRequestHeaderSize), &got).ok());
  EXPECT_FALSE(decoder.mid_frame());
  EXPECT_EQ(got.size(), 1u);
}

// A header that declares the given sizes, with nothing after it.
std::string RequestHeader(uint32_t credential_length, uint32_t body_length, uint64_t id = 42) {
  std::string frame =
      EncodeRequestFrame({.method = 1, .request_id = id, .credential = "", .body = ""});
  for (int i = 0; i < 4; ++i) {
    frame[16 + i] = static_cast<char>((credential_length >> (8 * i)) & 0xff);
    frame[20 + i] = static_cast<char>((body_length >> (8 * i)) & 0xff);
  }
  return frame;
}

TEST(FrameTest, OversizedBodyIsRefusedFromTheHeaderAlone) {
  // Declares 4 GiB - 1: refused as soon as the header is in, before any
  // allocation for the body (which never arrives).
  RequestDecoder decoder;
  std::vector<RequestFrame> got;
  Status status = decoder.Feed(RequestHeader(0, 0xffffffffu, 42), &got);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(status.message(), HasSubstr("4294967295"));
  EXPECT_EQ(decoder.refused_request_id(), 42u);
  EXPECT_TRUE(got.empty());
}

TEST(FrameTest, OversizedCredentialIsRefused) {
  RequestDecoder decoder;
  std::vector<RequestFrame> got;
  Status status = decoder.Feed(RequestHeader(8 * 1024 + 1, 0), &got);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(status.message(), HasSubstr("credential"));
}

TEST(FrameTest, LimitsAreConfigurableAndInclusive) {
  FrameLimits limits{.max_body_bytes = 10, .max_credential_bytes = 3};
  {
    RequestDecoder decoder(limits);
    std::vector<RequestFrame> got;
    EXPECT_TRUE(decoder
                    .Feed(EncodeRequestFrame({.method = 1,
                                              .request_id = 1,
                                              .credential = "abc",
                                              .body = std::string(10, 'b')}),
                          &got)
                    .ok());
    EXPECT_EQ(got.size(), 1u);
  }
  {
    RequestDecoder decoder(limits);
    std::vector<RequestFrame> got;
    EXPECT_FALSE(decoder.Feed(RequestHeader(0, 11), &got).ok());
  }
  {
    ResponseDecoder decoder(limits);
    std::vector<ResponseFrame> got;
    Status status = decoder.Feed(
        EncodeResponseFrame({.status = 0, .request_id = 8, .body = std::string(11, 'b')}), &got);
    EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
    EXPECT_EQ(decoder.refused_request_id(), 8u);
  }
}

TEST(FrameTest, BadMagicIsRefused) {
  RequestDecoder decoder;
  std::vector<RequestFrame> got;
  Status status = decoder.Feed("GET / HTTP/1.1\r\nHost: x\r\n\r\n", &got);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("magic"));
  EXPECT_FALSE(decoder.refused_request_id().has_value());
}

TEST(FrameTest, UnsupportedVersionIsRefused) {
  std::string frame = EncodeRequestFrame(SampleRequests()[0]);
  frame[4] = 2;
  RequestDecoder decoder;
  std::vector<RequestFrame> got;
  Status status = decoder.Feed(frame, &got);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("version 2"));

  std::string response = EncodeResponseFrame(SampleResponses()[0]);
  response[5] = 1;  // Version 257.
  ResponseDecoder response_decoder;
  std::vector<ResponseFrame> responses;
  EXPECT_THAT(response_decoder.Feed(response, &responses).message(), HasSubstr("version 257"));
}

TEST(FrameTest, FramesBeforeABadOneAreDeliveredAndTheDecoderStaysPoisoned) {
  std::string stream = EncodeRequestFrame(SampleRequests()[0]) + "XOTA" + std::string(40, '\0');
  RequestDecoder decoder;
  std::vector<RequestFrame> got;
  EXPECT_FALSE(decoder.Feed(stream, &got).ok());
  EXPECT_EQ(got.size(), 1u);
  // Good bytes after a refusal are refused too: the stream cannot resync.
  EXPECT_FALSE(decoder.Feed(EncodeRequestFrame(SampleRequests()[0]), &got).ok());
  EXPECT_EQ(got.size(), 1u);
}

TEST(FrameTest, HeadCheckSeesTheCredentialBeforeAnyBodyByte) {
  std::vector<RequestHead> seen;
  std::vector<std::string> credentials;
  RequestDecoder decoder({}, [&](const RequestHead& head) {
    seen.push_back(head);
    credentials.emplace_back(head.credential);
    return Status::Ok();
  });
  const std::string frame =
      EncodeRequestFrame({.method = 9, .request_id = 44, .credential = "cred", .body = "the body"});
  std::vector<RequestFrame> out;
  // Header and credential, and not one byte of the body: checked already.
  ASSERT_TRUE(decoder.Feed(std::string_view(frame).substr(0, kRequestHeaderSize + 4), &out).ok());
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, 9);
  EXPECT_EQ(seen[0].request_id, 44u);
  EXPECT_EQ(seen[0].body_length, 8u);
  EXPECT_EQ(credentials[0], "cred");
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(decoder.Feed(std::string_view(frame).substr(kRequestHeaderSize + 4), &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].body, "the body");
  EXPECT_EQ(seen.size(), 1u);  // Once per frame.
}

TEST(FrameTest, HeadCheckRefusalPoisonsTheDecoderBeforeTheBody) {
  RequestDecoder decoder({}, [](const RequestHead& head) {
    if (head.credential == "good") return Status::Ok();
    return Status(StatusCode::kPermissionDenied, "forged");
  });
  std::vector<RequestFrame> out;
  const std::string good =
      EncodeRequestFrame({.method = 1, .request_id = 1, .credential = "good", .body = "a"});
  const std::string forged =
      EncodeRequestFrame({.method = 1, .request_id = 2, .credential = "evil", .body = "b"});
  // The forged frame's body has not arrived: the refusal does not wait for it.
  Status status = decoder.Feed(good + forged.substr(0, kRequestHeaderSize + 4), &out);
  EXPECT_EQ(status.code(), StatusCode::kPermissionDenied);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].request_id, 1u);
  EXPECT_EQ(decoder.refused_request_id(), 2u);
  EXPECT_EQ(decoder.Feed("b", &out).code(), StatusCode::kPermissionDenied);
}

TEST(FrameTest, WireStatusRoundTrips) {
  EXPECT_EQ(WireStatus(StatusCode::kOk), 0);
  for (StatusCode code : {StatusCode::kInvalidArgument, StatusCode::kPermissionDenied,
                          StatusCode::kUnavailable, StatusCode::kInternal}) {
    EXPECT_EQ(StatusCodeFromWire(WireStatus(code)), code);
  }
  EXPECT_EQ(StatusCodeFromWire(999), StatusCode::kInternal);
}

}  // namespace
}  // namespace rota::rpc
