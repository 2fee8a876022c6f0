#include "precis/serve/server.h"

// cpp-httplib listens with a backlog of 5 unless told otherwise: a burst of new connections
// past that (64 clients, each reconnecting after httplib's 5 requests per keep-alive
// connection) can be reset before the server accepts it. This file is the only one
// that includes httplib.h, so the setting holds in unity builds too.
#define CPPHTTPLIB_LISTEN_BACKLOG 1024
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "precis/core/error.h"

namespace precis::serve {

namespace {

constexpr const char* kJson = "application/json";

void json_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(error_body(message), kJson);
}

// The metrics label of a path: its route pattern, or "other".
std::string route_of(const std::string& path) {
  if (path == "/" || path == "/health" || path == "/metrics") return path;
  if (path.rfind("/models/", 0) == 0) return "/models/{name}";
  return "other";
}

// Equal-time comparison, so that response times do not reveal how much of a token matched.
bool same_secret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string shortened(const std::string& s) { return s.size() > 80 ? s.substr(0, 80) + "..." : s; }

// A test hook, not a feature: PRECIS_TEST_HOLD_FIRST_BATCH=N holds the batcher's first batch
// until N requests are queued (BatcherOptions::hold_first_batch_until_queued), so that an
// oracle test can place concurrent requests in one batching window, or keep one queued
// while it sends SIGTERM, without sleeping. Unset, which it always is outside tests, nothing
// changes.
BatcherOptions with_test_hooks(BatcherOptions options) {
  if (const char* n = std::getenv("PRECIS_TEST_HOLD_FIRST_BATCH"))
    options.hold_first_batch_until_queued = size_t(std::strtoul(n, nullptr, 10));
  return options;
}

}  // namespace

InferenceServer::InferenceServer(const Summarizer& summarizer, PageContent page,
                                 ServerOptions options)
    : summarizer_(summarizer),
      options_(std::move(options)),
      page_html_(render_page(page)),
      batcher_(
          with_test_hooks(options_.batcher),
          [this](const std::string& key, const Batcher::Inputs& inputs) {
            return summarizer_.summarize(key, inputs);
          },
          [this](size_t inputs) { metrics_.batch(inputs); }),
      http_(std::make_unique<httplib::Server>()) {
  const size_t threads = options_.http_threads;
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http_->set_payload_max_length(options_.max_body_bytes);
  http_->set_read_timeout(options_.read_timeout_s, 0);
  http_->set_write_timeout(options_.read_timeout_s, 0);
  http_->set_keep_alive_timeout(options_.keep_alive_timeout_s);
  // httplib closes a keep-alive connection after 5 requests by default; clients would reconnect
  // every 5 requests (nginx keeps 1000).
  http_->set_keep_alive_max_count(1000);
  routes();
}

InferenceServer::~InferenceServer() {
  stop();
  batcher_.stop();
}

bool InferenceServer::authorized(const httplib::Request& req, httplib::Response& res) const {
  if (!options_.token) return true;
  const std::string prefix = "Bearer ";
  const std::string header = req.get_header_value("Authorization");
  if (header.compare(0, prefix.size(), prefix) == 0 &&
      same_secret(header.substr(prefix.size()), *options_.token))
    return true;
  res.set_header("WWW-Authenticate", "Bearer");
  json_error(res, 401, "missing or wrong bearer token (Authorization: Bearer <token>)");
  return false;
}

void InferenceServer::summarize(const httplib::Request& req, httplib::Response& res) {
  const auto started = std::chrono::steady_clock::now();
  answer_summaries(req, res);
  metrics_.latency(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

void InferenceServer::answer_summaries(const httplib::Request& req, httplib::Response& res) {
  if (!authorized(req, res)) return;
  ParsedRequest parsed = parse_inference_request(req.body, options_.request);
  if (auto* e = std::get_if<RequestError>(&parsed)) return json_error(res, e->status, e->message);
  InferenceRequest& r = std::get<InferenceRequest>(parsed);
  if (auto e = summarizer_.check_generation(r.generation))
    return json_error(res, e->status, e->message);
  Batcher::Inputs inputs;
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    auto ids = summarizer_.encode(r.inputs[i], r.truncate);
    if (auto* e = std::get_if<RequestError>(&ids))
      return json_error(
          res, e->status,
          (r.inputs_was_list ? "inputs[" + std::to_string(i) + "]: " : "") + e->message);
    inputs.push_back(std::move(std::get<std::vector<int32_t>>(ids)));
  }
  auto future = batcher_.submit(batch_key(r), std::move(inputs));
  if (!future) {
    res.set_header("Retry-After", std::to_string(options_.retry_after_s));
    return json_error(res, 503, "the server is busy (request queue full); retry later");
  }
  std::vector<std::string> summaries;
  try {
    summaries = future->get();
  } catch (const std::exception& e) {
    return json_error(res, 500, std::string("generation failed: ") + e.what());
  }
  nlohmann::json out = nlohmann::json::array();
  for (auto& s : summaries) out.push_back({{"summary_text", std::move(s)}});
  res.set_content(out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), kJson);
}

void InferenceServer::metrics_page(const httplib::Request& req, httplib::Response& res) {
  if (!authorized(req, res)) return;
  res.set_content(metrics_.render(batcher_.queue_depth(), options_.batcher.max_queue),
                  "text/plain; version=0.0.4; charset=utf-8");
}

void InferenceServer::routes() {
  using httplib::Request;
  using httplib::Response;
  httplib::Server& http = *http_;

  // Before any body is read: chunked bodies are refused, since cpp-httplib does not bound
  // them by the payload limit; a Content-Length is bounded (413).
  http.set_pre_routing_handler([](const Request& req, Response& res) {
    if (req.has_header("Transfer-Encoding")) {
      res.set_header("Connection", "close");
      json_error(res, 411,
                 "send the body with a Content-Length (chunked transfer is not accepted)");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });

  // Hub model ids: a name, or owner/name; nothing else (no "..", no empty segment).
  const std::string models = R"(/models/[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?)";
  auto summarize = [this](const Request& req, Response& res) { this->summarize(req, res); };
  http.Get("/", [this](const Request&, Response& res) {
    res.set_content(page_html_, "text/html; charset=utf-8");
  });
  http.Post("/", summarize);
  http.Post(models, summarize);
  http.Get("/health",
           [](const Request&, Response& res) { res.set_content(R"({"status":"ok"})", kJson); });
  http.Get("/metrics", [this](const Request& req, Response& res) { metrics_page(req, res); });
  refuse_other_methods(models);
  error_responses();
}

// 405 with Allow for every other method on a known path.
void InferenceServer::refuse_other_methods(const std::string& models) {
  auto not_allowed = [](const std::string& allow) {
    return [allow](const httplib::Request& req, httplib::Response& res) {
      res.set_header("Allow", allow);
      json_error(res, 405, req.method + " is not allowed here; use " + allow);
    };
  };
  const std::pair<std::string, std::string> allowed[] = {
      {"/", "GET, POST"}, {models, "POST"}, {"/health", "GET"}, {"/metrics", "GET"}};
  httplib::Server& http = *http_;
  for (const auto& [path, allow] : allowed) {
    if (allow.find("GET") == std::string::npos) http.Get(path, not_allowed(allow));
    if (allow.find("POST") == std::string::npos) http.Post(path, not_allowed(allow));
    http.Put(path, not_allowed(allow));
    http.Patch(path, not_allowed(allow));
    http.Delete(path, not_allowed(allow));
    http.Options(path, not_allowed(allow));
  }
}

// Statuses cpp-httplib sets itself (404, 413, 414, 400 for a malformed request) get a JSON
// body too; handlers' own errors already have one. Every response is counted by route and
// status; nothing is printed (no header, so no token, ever reaches a log).
void InferenceServer::error_responses() {
  using httplib::Request;
  using httplib::Response;
  httplib::Server& http = *http_;
  http.set_error_handler(
      httplib::Server::HandlerWithResponse([](const Request& req, Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        std::string message;
        switch (res.status) {
          case 404:
            message = "no such route: " + req.method + " " + shortened(req.path);
            break;
          case 413:
            message = "request body too large";
            break;
          case 414:
            message = "request URI too long";
            break;
          default:
            message = "bad request (HTTP status " + std::to_string(res.status) + ")";
        }
        res.set_content(error_body(message), kJson);
        return httplib::Server::HandlerResponse::Handled;
      }));
  http.set_exception_handler([](const Request&, Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what += std::string(": ") + e.what();
    } catch (...) {
    }
    json_error(res, 500, what);
  });
  http.set_logger([this](const Request& req, const Response& res) {
    metrics_.request(route_of(req.path), res.status);
  });
}

int InferenceServer::bind() {
  int port = options_.port;
  if (port == 0) {
    port = http_->bind_to_any_port(options_.host);
  } else if (!http_->bind_to_port(options_.host, port)) {
    port = -1;
  }
  check(port > 0, "precis serve: cannot listen on " + options_.host + ":" +
                      std::to_string(options_.port) +
                      " (address in use, or not an address of this machine)");
  return port;
}

void InferenceServer::run() {
  http_->listen_after_bind();
  // Every HTTP thread has finished; the batcher has nothing left that anyone waits for.
  batcher_.stop();
}

void InferenceServer::stop() {
  http_->stop();
  batcher_.release_hold();  // the test hook's (with_test_hooks): queued requests are answered
}

}  // namespace precis::serve
