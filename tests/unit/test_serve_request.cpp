// parse_inference_request: every accepted shape and every error, with the status and a
// message that names the field.
#include <gtest/gtest.h>

#include "precis/serve/inference_request.h"
#include "test_support.h"

namespace {

using precis::serve::InferenceRequest;
using precis::serve::parse_inference_request;
using precis::serve::RequestError;
using precis::serve::RequestLimits;

InferenceRequest ok(std::string_view body, const RequestLimits& limits = {}) {
  auto parsed = parse_inference_request(body, limits);
  if (auto* e = std::get_if<RequestError>(&parsed))
    ADD_FAILURE() << "refused " << body << ": " << e->message;
  return std::holds_alternative<InferenceRequest>(parsed) ? std::get<InferenceRequest>(parsed)
                                                          : InferenceRequest{};
}

RequestError refused(std::string_view body, const RequestLimits& limits = {}) {
  auto parsed = parse_inference_request(body, limits);
  if (std::holds_alternative<InferenceRequest>(parsed)) ADD_FAILURE() << "accepted " << body;
  return std::holds_alternative<RequestError>(parsed) ? std::get<RequestError>(parsed)
                                                      : RequestError{0, ""};
}

TEST(ServeRequest, OneStringNoParameters) {
  InferenceRequest r = ok(R"({"inputs": "Hello"})");
  EXPECT_EQ(r.inputs, std::vector<std::string>{"Hello"});
  EXPECT_FALSE(r.inputs_was_list);
  EXPECT_TRUE(r.truncate);
  EXPECT_EQ(r.generation, nlohmann::json::object());
}

TEST(ServeRequest, ListOfStrings) {
  InferenceRequest r = ok(R"({"inputs": ["a", "", "c\u00e9"]})");
  EXPECT_EQ(r.inputs, (std::vector<std::string>{"a", "", "c\xc3\xa9"}));
  EXPECT_TRUE(r.inputs_was_list);
}

TEST(ServeRequest, EveryParameterByItsApiName) {
  InferenceRequest r = ok(R"({"inputs": "x", "parameters": {"min_length": 3, "max_length": 40,
      "num_beams": 4, "length_penalty": -0.5, "no_repeat_ngram_size": 3, "do_sample": true,
      "temperature": 0.7, "top_k": 0, "top_p": 0.9, "repetition_penalty": 1.2, "truncation": false,
      "max_new_tokens": 20, "min_new_tokens": 2, "early_stopping": "never"}})");
  const nlohmann::json expected = {{"min_length", 3},
                                   {"max_length", 40},
                                   {"num_beams", 4},
                                   {"length_penalty", -0.5},
                                   {"no_repeat_ngram_size", 3},
                                   {"do_sample", true},
                                   {"temperature", 0.7},
                                   {"top_k", 0},
                                   {"top_p", 0.9},
                                   {"repetition_penalty", 1.2},
                                   {"max_new_tokens", 20},
                                   {"min_new_tokens", 2},
                                   {"early_stopping", "never"}};
  EXPECT_EQ(r.generation, expected);
  EXPECT_FALSE(r.truncate);
}

TEST(ServeRequest, NullMeansDefaultAndOptionsAreAccepted) {
  InferenceRequest r = ok(R"({"inputs": "x", "parameters": {"num_beams": null, "truncation": null},
                              "options": {"use_cache": true, "wait_for_model": false}})");
  EXPECT_EQ(r.generation, nlohmann::json::object());
  EXPECT_TRUE(r.truncate);
  EXPECT_EQ(ok(R"({"inputs": "x", "parameters": null, "options": null})").inputs.size(), 1u);
}

TEST(ServeRequest, TruncationSpellings) {
  EXPECT_TRUE(ok(R"({"inputs": "x", "parameters": {"truncation": true}})").truncate);
  EXPECT_TRUE(ok(R"({"inputs": "x", "parameters": {"truncation": "longest_first"}})").truncate);
  EXPECT_TRUE(ok(R"({"inputs": "x", "parameters": {"truncation": "only_first"}})").truncate);
  EXPECT_FALSE(ok(R"({"inputs": "x", "parameters": {"truncation": "do_not_truncate"}})").truncate);
  EXPECT_CONTAINS(refused(R"({"inputs": "x", "parameters": {"truncation": "sometimes"}})").message,
                  "parameters.truncation");
}

TEST(ServeRequest, GenerationKeyIsCanonical) {
  // The batcher groups requests by generation.dump(): key order must not matter.
  EXPECT_EQ(
      ok(R"({"inputs": "x", "parameters": {"num_beams": 2, "max_length": 9}})").generation.dump(),
      ok(R"({"parameters": {"max_length": 9, "num_beams": 2}, "inputs": "y"})").generation.dump());
}

// Today's task spec (huggingface_hub's InferenceClient.summarization): generate_parameters
// holds GenerationConfig's keys, checked as the flat ones are and named by their path;
// clean_up_tokenization_spaces is decode()'s; truncation's fourth strategy needs a pair.
TEST(ServeRequest, TaskSpecParameters) {
  InferenceRequest r = ok(R"({"inputs": "x", "parameters": {"clean_up_tokenization_spaces": false,
      "generate_parameters": {"num_beams": 3, "max_new_tokens": 12, "early_stopping": true,
      "top_p": null}, "truncation": "longest_first"}})");
  EXPECT_EQ(r.generation,
            (nlohmann::json{{"num_beams", 3}, {"max_new_tokens", 12}, {"early_stopping", true}}));
  EXPECT_EQ(r.clean_up_tokenization_spaces, false);
  EXPECT_TRUE(r.truncate);
  EXPECT_EQ(ok(R"({"inputs": "x", "parameters": {"clean_up_tokenization_spaces": true}})")
                .clean_up_tokenization_spaces,
            true);
  EXPECT_EQ(ok(R"({"inputs": "x", "parameters": {"clean_up_tokenization_spaces": null}})")
                .clean_up_tokenization_spaces,
            std::nullopt);
  // Flat and nested settings together, each once.
  EXPECT_EQ(
      ok(R"({"inputs": "x", "parameters": {"num_beams": 2, "generate_parameters": {"max_length": 9}}})")
          .generation,
      (nlohmann::json{{"num_beams", 2}, {"max_length", 9}}));

  EXPECT_CONTAINS(
      refused(R"({"inputs": "x", "parameters": {"generate_parameters": {"num_beams": 0}}})")
          .message,
      "parameters.generate_parameters.num_beams must be at least 1");
  EXPECT_CONTAINS(
      refused(R"({"inputs": "x", "parameters": {"generate_parameters": {"num_beam": 2}}})").message,
      "unknown generation parameter \"num_beam\" in parameters.generate_parameters");
  EXPECT_CONTAINS(
      refused(R"({"inputs": "x", "parameters": {"generate_parameters": {"truncation": true}}})")
          .message,
      "unknown generation parameter \"truncation\"");
  EXPECT_CONTAINS(refused(R"({"inputs": "x", "parameters": {"generate_parameters": [2]}})").message,
                  "parameters.generate_parameters must be an object");
  EXPECT_CONTAINS(refused(R"({"inputs": "x", "parameters": {"generate_parameters": {"num_beams": 2},
                              "num_beams": 2}})")
                      .message,
                  "parameters.generate_parameters.num_beams is also given as parameters.num_beams");
  EXPECT_CONTAINS(
      refused(R"({"inputs": "x", "parameters": {"clean_up_tokenization_spaces": "no"}})").message,
      "parameters.clean_up_tokenization_spaces must be true or false");
  EXPECT_CONTAINS(
      refused(R"({"inputs": "x", "parameters": {"truncation": "only_second"}})").message,
      "cuts the second text of a pair");
}

// The batch key carries the decoding with the generation: requests that decode differently
// are never one batch, and the key reads back as it was made.
TEST(ServeRequest, BatchKeyHoldsGenerationAndDecoding) {
  const InferenceRequest plain = ok(R"({"inputs": "x", "parameters": {"num_beams": 2}})");
  const InferenceRequest clean = ok(R"({"inputs": "x", "parameters": {"num_beams": 2,
      "clean_up_tokenization_spaces": false}})");
  EXPECT_NE(precis::serve::batch_key(plain), precis::serve::batch_key(clean));
  const auto settings = precis::serve::parse_batch_key(precis::serve::batch_key(clean));
  EXPECT_EQ(settings.generation, clean.generation);
  EXPECT_EQ(settings.clean_up_tokenization_spaces, false);
  EXPECT_EQ(
      precis::serve::parse_batch_key(precis::serve::batch_key(plain)).clean_up_tokenization_spaces,
      std::nullopt);
}

TEST(ServeRequest, MalformedJson) {
  for (const char* body :
       {"", "{", R"({"inputs": "x",})", "inputs=x", R"({"inputs": "x"} trailing)", "\"x\"\n]"}) {
    RequestError e = refused(body);
    EXPECT_EQ(e.status, 400);
    EXPECT_CONTAINS(e.message, "malformed JSON");
  }
}

TEST(ServeRequest, InvalidUtf8AnywhereInTheBody) {
  for (std::string body :
       {std::string("{\"inputs\": \"caf\xe9\"}"), std::string("{\"inputs\": \"\xc0\xaf\"}"),
        std::string("{\"inputs\": \"\xed\xa0\x80\"}"), std::string("\xff{}")}) {
    RequestError e = refused(body);
    EXPECT_EQ(e.status, 400);
    EXPECT_CONTAINS(e.message, "not valid UTF-8");
  }
}

TEST(ServeRequest, BodyMustBeAnObjectWithInputs) {
  EXPECT_CONTAINS(refused(R"(["x"])").message, "must be a JSON object");
  EXPECT_CONTAINS(refused(R"("x")").message, "must be a JSON object");
  EXPECT_CONTAINS(refused(R"({})").message, "missing field \"inputs\"");
  EXPECT_CONTAINS(refused(R"({"parameters": {}})").message, "missing field \"inputs\"");
}

TEST(ServeRequest, WrongInputTypes) {
  EXPECT_CONTAINS(refused(R"({"inputs": 5})").message, "\"inputs\" must be a string or a list");
  EXPECT_CONTAINS(refused(R"({"inputs": null})").message, "\"inputs\" must be a string or a list");
  EXPECT_CONTAINS(refused(R"({"inputs": {"text": "x"}})").message,
                  "\"inputs\" must be a string or a list");
  EXPECT_CONTAINS(refused(R"({"inputs": ["a", 2]})").message, "\"inputs\"[1] must be a string");
  EXPECT_CONTAINS(refused(R"({"inputs": [["a"]]})").message, "\"inputs\"[0] must be a string");
  EXPECT_CONTAINS(refused(R"({"inputs": []})").message, "empty list");
}

TEST(ServeRequest, TooManyInputs) {
  RequestLimits limits;
  limits.max_inputs = 2;
  EXPECT_EQ(ok(R"({"inputs": ["a", "b"]})", limits).inputs.size(), 2u);
  EXPECT_CONTAINS(refused(R"({"inputs": ["a", "b", "c"]})", limits).message,
                  "at most 2 per request");
}

TEST(ServeRequest, UnknownFieldsParametersAndOptionsAreNamed) {
  EXPECT_CONTAINS(refused(R"({"inputs": "x", "input": "y"})").message, "unknown field \"input\"");
  EXPECT_CONTAINS(refused(R"({"inputs": "x", "parameters": {"num_beam": 2}})").message,
                  "unknown parameter \"num_beam\"");
  EXPECT_CONTAINS(refused(R"({"inputs": "x", "parameters": {"seed": null}})").message,
                  "unknown parameter \"seed\"");
  EXPECT_CONTAINS(refused(R"({"inputs": "x", "options": {"cache": true}})").message,
                  "unknown option \"cache\"");
  // A huge unknown key is not echoed whole.
  std::string key(100000, 'k');
  EXPECT_LT(refused("{\"inputs\": \"x\", \"" + key + "\": 1}").message.size(), 200u);
}

TEST(ServeRequest, WrongContainerTypes) {
  EXPECT_CONTAINS(refused(R"({"inputs": "x", "parameters": [1]})").message,
                  "\"parameters\" must be an object");
  EXPECT_CONTAINS(refused(R"({"inputs": "x", "options": "fast"})").message,
                  "\"options\" must be an object");
  EXPECT_CONTAINS(refused(R"({"inputs": "x", "options": {"use_cache": "yes"}})").message,
                  "options.use_cache must be true or false");
}

TEST(ServeRequest, WrongParameterTypesAndRanges) {
  struct Case {
    const char* parameters;
    const char* message;
  };
  const Case cases[] = {
      {R"({"num_beams": "4"})", "parameters.num_beams must be an integer"},
      {R"({"num_beams": 2.5})", "parameters.num_beams must be an integer"},
      {R"({"num_beams": 0})", "parameters.num_beams must be at least 1"},
      {R"({"max_length": 0})", "parameters.max_length must be at least 1"},
      {R"({"max_length": true})", "parameters.max_length must be an integer"},
      {R"({"max_length": 18446744073709551615})", "parameters.max_length is too large"},
      {R"({"max_new_tokens": 0})", "parameters.max_new_tokens must be at least 1"},
      {R"({"min_length": -1})", "parameters.min_length must be at least 0"},
      {R"({"min_new_tokens": -2})", "parameters.min_new_tokens must be at least 0"},
      {R"({"no_repeat_ngram_size": -1})", "parameters.no_repeat_ngram_size must be at least 0"},
      {R"({"top_k": -5})", "parameters.top_k must be at least 0"},
      {R"({"length_penalty": "2"})", "parameters.length_penalty must be a number"},
      {R"({"length_penalty": 1e999})", "malformed JSON"},
      {R"({"temperature": 0})", "parameters.temperature must be greater than 0"},
      {R"({"temperature": -1.5})", "parameters.temperature must be greater than 0"},
      {R"({"repetition_penalty": 0.0})", "parameters.repetition_penalty must be greater than 0"},
      {R"({"top_p": 0})", "parameters.top_p must be greater than 0"},
      {R"({"top_p": 1.5})", "parameters.top_p must be in (0, 1]"},
      {R"({"do_sample": 1})", "parameters.do_sample must be true or false"},
      {R"({"do_sample": "true"})", "parameters.do_sample must be true or false"},
      {R"({"early_stopping": "sometimes"})",
       "parameters.early_stopping must be true, false or \"never\""},
      {R"({"truncation": 1})", "parameters.truncation must be"},
  };
  for (const Case& c : cases) {
    RequestError e = refused(std::string(R"({"inputs": "x", "parameters": )") + c.parameters + "}");
    EXPECT_EQ(e.status, 400) << c.parameters;
    EXPECT_CONTAINS(e.message, c.message);
  }
}

TEST(ServeRequest, DeepNestingIsAnErrorNotACrash) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_CONTAINS(refused(R"({"inputs": )" + deep + "}").message, "nested deeper than 32 levels");
  EXPECT_CONTAINS(refused(std::string(100000, '[')).message, "nested deeper than 32 levels");
  // Brackets inside strings do not count.
  EXPECT_EQ(ok(R"({"inputs": ")" + std::string(1000, '[') + "\\\"\"}").inputs.size(), 1u);
}

TEST(ServeRequest, ErrorBodyIsJsonEvenForInvalidUtf8) {
  nlohmann::json j = nlohmann::json::parse(precis::serve::error_body("bad \xff byte"));
  EXPECT_CONTAINS(j["error"].get<std::string>(), "bad ");
}

}  // namespace
