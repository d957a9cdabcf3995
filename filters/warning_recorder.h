#pragma once
// WithWarningRecorder: warnings the handlers add to the request context go out as
// `Warning: 299 - "<text>"` headers, deduplicated, in the response they belong to.
#include "filters/filter.h"

#include <set>

namespace kapi::filters {

class WarningRecorderFilter final : public Filter {
 public:
  std::string_view name() const override { return "warning-recorder"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    Writer writer(*exchange.response, exchange.context);
    http::ResponseWriter* outer = exchange.response;
    exchange.response = &writer;
    struct Restore {
      Exchange& exchange;
      http::ResponseWriter* outer;
      ~Restore() { exchange.response = outer; }
    } restore{exchange, outer};
    co_await next(exchange);
  }

 private:
  class Writer final : public http::ResponseWriterDecorator {
   public:
    Writer(http::ResponseWriter& inner, const RequestContext& context)
        : ResponseWriterDecorator(inner), context_(context) {}
    asio::awaitable<void> write(int status, std::string body) override {
      add_warnings();
      return inner().write(status, std::move(body));
    }
    asio::awaitable<void> begin_stream(int status) override {
      add_warnings();
      return inner().begin_stream(status);
    }

   private:
    void add_warnings() {
      std::set<std::string> seen;
      for (const auto& text : context_.warnings) {
        if (!seen.insert(text).second) continue;
        std::string escaped;
        for (char c : text) {
          if (c == '"' || c == '\\') escaped.push_back('\\');
          escaped.push_back(c);
        }
        inner().headers().add("Warning", "299 - \"" + escaped + "\"");
      }
    }
    const RequestContext& context_;
  };
};

}  // namespace kapi::filters
