// The HTTP server of `precis serve` (cpp-httplib): the Inference API's summarization
// endpoint at POST / and POST /models/<name>, the web page at GET /, GET /health and
// GET /metrics. Requests are parsed and checked on the HTTP threads, tokenized there, and
// queued to the batcher, whose one worker runs generate(); the HTTP thread waits for its
// summaries. Errors are JSON {"error": ...} with a 4xx status (503 when the queue is full).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "precis/serve/batcher.h"
#include "precis/serve/inference_request.h"
#include "precis/serve/metrics.h"
#include "precis/serve/page.h"
#include "precis/serve/summarizer.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace precis::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                  // 0: any free port (see port())
  size_t max_body_bytes = 1 << 20;  // larger bodies get 413
  size_t http_threads = 96;         // connections served at once
  int read_timeout_s = 5;           // a client that stalls mid-request is dropped after this
  int keep_alive_timeout_s = 2;
  int retry_after_s = 1;             // Retry-After of a 503
  std::optional<std::string> token;  // bearer token required on POST and /metrics
  RequestLimits request;
  BatcherOptions batcher;
};

class InferenceServer {
 public:
  InferenceServer(const Summarizer& summarizer, PageContent page, ServerOptions options);
  ~InferenceServer();

  // Binds the socket (throws precis::Error when it cannot) and returns the port.
  int bind();
  // Serves until stop(); then every request already read is answered before it returns.
  void run();
  // Stops accepting; safe from any thread, and more than once.
  void stop();

 private:
  void routes();
  void refuse_other_methods(const std::string& models);
  void error_responses();
  // The one bearer check (POST and /metrics): true, or false with a 401 written.
  bool authorized(const httplib::Request& req, httplib::Response& res) const;
  void summarize(const httplib::Request& req, httplib::Response& res);  // timed
  void answer_summaries(const httplib::Request& req, httplib::Response& res);
  void metrics_page(const httplib::Request& req, httplib::Response& res);

  const Summarizer& summarizer_;
  ServerOptions options_;
  std::string page_html_;
  ServerMetrics metrics_;
  Batcher batcher_;
  std::unique_ptr<httplib::Server> http_;
};

}  // namespace precis::serve
