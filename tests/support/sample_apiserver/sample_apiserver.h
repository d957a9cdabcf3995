#pragma once
// The sample extension API server's request handling: request-header (front proxy) authentication as a real
// extension API server does it, a request log for tests, and routing to the wardle.example.com documents
// (flunders.h), with watches streamed on kapi's own ResponseWriter.
#include "server/authentication/request_header.h"
#include "server/http/request.h"
#include "server/http/response_writer.h"

#include <asio/awaitable.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace kapi::sample_apiserver {

struct HandlerOptions {
  // --requestheader-client-ca-file: empty serves every request, trusting the X-Remote-* headers as sent.
  std::filesystem::path requestheader_client_ca_file;
  std::vector<std::string> requestheader_allowed_names;  // empty: any CN the CA signed
  std::filesystem::path request_log;                      // empty: no log
  bool redirect_resources = false;  // resource requests answer 302 to https://example.invalid/elsewhere
};

class SampleApiServer {
 public:
  // Throws std::runtime_error when the CA file or the request log cannot be opened.
  explicit SampleApiServer(HandlerOptions options);

  asio::awaitable<void> handle(http::Request& request, http::ResponseWriter& response);

 private:
  // Who the front proxy says sent the request; std::nullopt when the request must be refused (401).
  asio::awaitable<std::optional<authentication::UserInfo>> authenticate(http::Request& request) const;
  void log(const http::Request& request, const authentication::UserInfo& user);

  HandlerOptions options_;
  std::optional<authentication::RequestHeaderAuthenticator> front_proxy_;
  std::ofstream request_log_;
};

}  // namespace kapi::sample_apiserver
