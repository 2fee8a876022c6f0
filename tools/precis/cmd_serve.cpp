// precis serve: a checkpoint behind an HTTP server in the shape of the Hugging Face Inference
// API (POST / and POST /models/<name>), with a web page to try it (GET /), GET /health and
// GET /metrics. Loopback only unless --host says otherwise. SIGTERM or SIGINT stops it
// gracefully: no new connection is accepted, requests in flight are answered, exit 0.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "command.h"
#include "hf_semantics_option.h"
#include "precis/core/error.h"
#include "precis/generate/generation_config.h"
#include "precis/kernels/device_choice.h"
#include "precis/serve/server.h"
#include "quantization_option.h"
#include "summary_lengths.h"

namespace {

struct ServeCommandOptions {
  std::string model, host = "127.0.0.1", token_env, device = "auto";
  int port = 8080;
  size_t max_batch_size = 16, max_queue = 64, max_inputs = 64, max_body_bytes = 1 << 20,
         http_threads = 96;
  double batch_wait_ms = 5;
  int read_timeout_s = 5;
  std::optional<size_t> max_input_tokens;
  int64_t max_num_beams = 8;
  precis::cli::SummaryLengths lengths;  // run_summarization's names for the default max_length
};

// The form's initial values: the checkpoint's generation defaults, by API name.
nlohmann::json form_defaults(const precis::generate::GenerationConfig& c) {
  return {{"num_beams", c.num_beams},
          {"max_length", c.max_length},
          {"min_length", c.min_length},
          {"length_penalty", c.length_penalty},
          {"no_repeat_ngram_size", c.no_repeat_ngram_size},
          {"repetition_penalty", c.repetition_penalty},
          {"temperature", c.temperature},
          {"top_k", c.top_k},
          {"top_p", c.top_p},
          {"do_sample", c.do_sample}};
}

void run(const ServeCommandOptions& o) {
  using namespace precis;
  serve::ServerOptions options;
  options.host = o.host;
  options.port = o.port;
  options.max_body_bytes = o.max_body_bytes;
  options.http_threads = o.http_threads;
  options.read_timeout_s = o.read_timeout_s;
  options.request.max_inputs = o.max_inputs;
  options.batcher.max_batch_size = o.max_batch_size;
  options.batcher.max_queue = o.max_queue;
  options.batcher.wait = std::chrono::microseconds(int64_t(o.batch_wait_ms * 1000));
  if (!o.token_env.empty()) {
    const char* token = std::getenv(o.token_env.c_str());
    check(token && *token, "precis serve: --token_env " + o.token_env +
                               ": that environment variable is not set or empty");
    options.token = token;
  }

  // SIGTERM and SIGINT are taken by one thread with sigwait, so they are blocked in every
  // thread started from here on (OpenMP's and the server's included).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  serve::SummarizerLimits limits;
  limits.max_input_tokens = o.max_input_tokens;
  limits.max_num_beams = o.max_num_beams;
  limits.max_length = o.lengths.generation();
  const Device device = choose_device(o.device, 0, 1);
  auto summarizer = serve::Summarizer::load(o.model, limits, device);
  serve::PageContent page = serve::page_content(o.model, form_defaults(summarizer->defaults()),
                                                options.token.has_value());
  serve::InferenceServer server(*summarizer, std::move(page), options);
  const int port = server.bind();
  std::printf("precis serve: %s on http://%s:%d (inputs up to %zu tokens, on %s)\n",
              o.model.c_str(), o.host.c_str(), port, summarizer->max_input_tokens(),
              device.name().c_str());
  std::fflush(stdout);

  std::atomic<bool> signalled = false;
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    signalled = true;
    std::fprintf(stderr, "precis serve: %s, finishing requests in flight\n",
                 signal == SIGTERM ? "SIGTERM" : "SIGINT");
    server.stop();
  });
  server.run();
  const bool graceful = signalled;
  if (!graceful) pthread_kill(waiter.native_handle(), SIGTERM);  // wakes the waiter's sigwait
  waiter.join();
  check(graceful, "precis serve: the listening socket failed");
  std::fprintf(stderr, "precis serve: stopped\n");
}

}  // namespace

PRECIS_COMMAND(
    "serve", "HTTP server in the Inference API's shape, with a web page to try the model",
    [](CLI::App& app) {
      auto o = std::make_shared<ServeCommandOptions>();
      app.add_option("--model,--model_name_or_path", o->model,
                     "Model directory (HF checkpoint with tokenizer)")
          ->required();
      app.add_option("--device", o->device,
                     "Where the model generates: auto (a GPU when there is one), cpu or cuda")
          ->capture_default_str();
      app.add_option("--host", o->host, "Address to listen on (loopback unless told otherwise)")
          ->capture_default_str();
      app.add_option("--port", o->port, "Port (0: any free port, printed at start)")
          ->capture_default_str()
          ->check(CLI::Range(0, 65535));
      app.add_option("--token_env", o->token_env,
                     "Name of an environment variable holding a bearer token that POST and "
                     "/metrics then require");
      app.add_option("--max_batch_size", o->max_batch_size,
                     "Most inputs generated together in one batch")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
      app.add_option("--batch_wait_ms", o->batch_wait_ms,
                     "How long a request waits for others to join its batch")
          ->capture_default_str()
          ->check(CLI::Range(0.0, 10000.0));
      app.add_option("--max_queue", o->max_queue, "Requests waiting before the server answers 503")
          ->capture_default_str();
      app.add_option("--max_inputs", o->max_inputs, "Most texts in one request's inputs list")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
      app.add_option("--max_body_bytes", o->max_body_bytes, "Largest request body (413 above)")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
      app.add_option("--max_input_tokens,--max_source_length", o->max_input_tokens,
                     "Input limit in tokens, below the model's own (max_position_embeddings, "
                     "model_max_length)");
      o->lengths.add_to(app);
      app.add_option("--max_num_beams", o->max_num_beams, "Most beams a request may ask for")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
      app.add_option("--http_threads", o->http_threads, "Connections served at once")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
      app.add_option("--read_timeout_s", o->read_timeout_s,
                     "Drop a client that stalls this long mid-request")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
      precis::cli::add_hf_semantics_option(app);
      precis::cli::add_quantization_option(app);
      app.callback([o] { run(*o); });
    });
