// kapi-sample-apiserver: a small extension API server (kube's sample-apiserver, group wardle.example.com) for
// kapi's aggregator tests. It serves HTTPS with kapi's own HTTP server and trusts only the aggregator's front-proxy
// client certificate. See flunders.h for what it serves and usage() for its flags.
#include "server/http/http_server.h"
#include "tests/support/sample_apiserver/sample_apiserver.h"
#include "tests/support/sample_apiserver/serve.h"
#include "tests/support/sample_apiserver/serving_pki.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>

#include <csignal>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Flags {
  int secure_port = 443;
  std::string bind_address = "127.0.0.1";
  std::filesystem::path cert_dir = "apiserver.local.config/certificates";  // kube's sample-apiserver default
  std::vector<std::string> server_names = {"api.wardle-system.svc"};
  kapi::sample_apiserver::HandlerOptions handler;
  bool disable_http2 = false;
  bool help = false;
};

std::string usage() {
  return "Usage: kapi-sample-apiserver [flags]\n"
         "  --secure-port=N                      HTTPS port; 0 picks a free one (default 443)\n"
         "  --bind-address=IP                    (default 127.0.0.1)\n"
         "  --cert-dir=DIR                       ca.crt and serving.crt/.key, generated when missing\n"
         "  --server-name=NAMES                  comma list of the serving certificate's DNS names\n"
         "                                       (default api.wardle-system.svc; 127.0.0.1 is always added)\n"
         "  --requestheader-client-ca-file=FILE  the front proxy's CA; without it no request is authenticated\n"
         "  --requestheader-allowed-names=CNS    comma list of the front proxy's CNs (empty: any)\n"
         "  --request-log=FILE                   append a JSON line per request (method, path, query, user, uid,\n"
         "                                       groups, extra, clientCN, protocol)\n"
         "  --redirect-resources                 answer resource requests with 302 to https://example.invalid\n"
         "  --disable-http2                      offer only http/1.1 in ALPN (default: h2, then http/1.1)\n"
         "Prints \"sample-apiserver serving on https://<address>:<port>\" once listening; exits 0 on SIGTERM.\n";
}

std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Flags parse_flags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const std::size_t equals = argument.find('=');
    const std::string name = argument.substr(0, equals);
    const std::optional<std::string> value =
        equals == std::string::npos ? std::nullopt : std::optional<std::string>(argument.substr(equals + 1));
    auto required = [&]() -> const std::string& {
      if (!value) throw std::invalid_argument(name + " needs a value (" + name + "=...)");
      return *value;
    };
    if (name == "--help" || name == "-h") {
      flags.help = true;
    } else if (name == "--secure-port") {
      flags.secure_port = std::stoi(required());
      if (flags.secure_port < 0 || flags.secure_port > 65535) throw std::invalid_argument("--secure-port out of range");
    } else if (name == "--bind-address") {
      flags.bind_address = required();
    } else if (name == "--cert-dir") {
      flags.cert_dir = required();
    } else if (name == "--server-name") {
      flags.server_names = comma_list(required());
    } else if (name == "--requestheader-client-ca-file") {
      flags.handler.requestheader_client_ca_file = required();
    } else if (name == "--requestheader-allowed-names") {
      flags.handler.requestheader_allowed_names = comma_list(required());
    } else if (name == "--request-log") {
      flags.handler.request_log = required();
    } else if (name == "--disable-http2") {
      flags.disable_http2 = !value || *value == "true";
    } else if (name == "--redirect-resources") {
      flags.handler.redirect_resources = !value || *value == "true";
    } else {
      throw std::invalid_argument("unknown flag " + argument);
    }
  }
  return flags;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a client that went away is an error on the socket, not a signal
  Flags flags;
  try {
    flags = parse_flags(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "Error: " << error.what() << "\n\n" << usage();
    return 2;
  }
  if (flags.help) {
    std::cout << usage();
    return 0;
  }

  try {
    const auto serving = kapi::sample_apiserver::ensure_serving_pki(flags.cert_dir, flags.server_names);
    // Declared in this order so they go in reverse: the server while its io_context runs no more, then the
    // io_context, destroying the coroutines still suspended in it (watches), while the handler they use is alive.
    kapi::sample_apiserver::SampleApiServer handler(flags.handler);
    asio::io_context io(1);
    kapi::http::HttpServer server(io, {}, [&handler](kapi::http::Request& request, kapi::http::ResponseWriter& response) {
      return handler.handle(request, response);
    });
    // The front-proxy CA verifies client certificates in the handler (with the client-auth usage check), so
    // the handshake only names it as acceptable.
    kapi::http::TlsFiles tls{serving.cert, serving.key, {}, {}};
    tls.http2 = !flags.disable_http2;
    if (!flags.handler.requestheader_client_ca_file.empty())
      tls.other_client_ca_files.push_back(flags.handler.requestheader_client_ca_file);
    const auto bound = server.listen({asio::ip::make_address(flags.bind_address),
                                      static_cast<std::uint16_t>(flags.secure_port)},
                                     kapi::http::make_server_tls_context(tls));
    kapi::sample_apiserver::serve_until_signalled(io, server, bound, "sample-apiserver");
  } catch (const std::exception& error) {
    std::cerr << "kapi-sample-apiserver: " << error.what() << std::endl;
    return 1;
  }
  return 0;
}
