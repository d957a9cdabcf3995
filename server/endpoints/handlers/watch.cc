// WATCH (handlers/watch.go): a chunked stream of {"type":...,"object":...} lines until timeoutSeconds, the
// client leaving, the storage ending the watch, or the server shutting down.
#include "request/list_options_probe.h"
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/handlers/protobuf.h"
#include "server/endpoints/handlers/response.h"
#include "server/registry/object_meta.h"
#include "server/registry/storage_errors.h"
#include "server/schema/transcoder.h"
#include "storage/shared_object.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <charconv>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>

namespace kapi::endpoints::handlers {
namespace {

namespace json = boost::json;

// kube-apiserver's --min-request-timeout: a watch without timeoutSeconds lasts 30–60 minutes at random, so that
// clients spread their re-watches.
std::chrono::seconds default_watch_timeout() {
  std::minstd_rand random(std::random_device{}());
  return std::chrono::seconds(1800 + static_cast<int>(random() % 1800));
}

std::string_view type_name(storage::WatchEventType type) {
  switch (type) {
    case storage::WatchEventType::Added: return "ADDED";
    case storage::WatchEventType::Modified: return "MODIFIED";
    case storage::WatchEventType::Deleted: return "DELETED";
    case storage::WatchEventType::Bookmark: return "BOOKMARK";
    case storage::WatchEventType::Error: return "ERROR";
  }
  return "ERROR";
}


// The encoding-cache format of a whole JSON watch line of this type.
std::string_view json_line_format(storage::WatchEventType type) {
  switch (type) {
    case storage::WatchEventType::Added: return "json-line-ADDED";
    case storage::WatchEventType::Modified: return "json-line-MODIFIED";
    case storage::WatchEventType::Deleted: return "json-line-DELETED";
    default: return "json-line-other";
  }
}

// The object of an event in one format: from the event's shared cache when it has one, else encoded here.
// Every watcher but the first finds it cached: no encoder is wrapped for them (a std::function per delivery).
template <typename Encode>
std::shared_ptr<const std::string> encoded(const storage::SharedWatchEvent& event, std::string_view format,
                                           Encode&& encode) {
  if (!event.encodings) return std::make_shared<const std::string>(encode());
  if (auto cached = event.encodings->find(format)) return cached;
  return event.encodings->get_or_encode(format, std::forward<Encode>(encode));
}

// The shared state between the watch loop and what may end it from outside (timeout, shutdown).
struct WatchControl {
  storage::WatchStream* stream = nullptr;
  void end() {
    if (stream) stream->stop();
  }
};

// What ends the watch from outside, undone when the stream ends. Moves with the stream when it is handed off.
class WatchEnders {
 public:
  WatchEnders(std::shared_ptr<WatchControl> control, std::shared_ptr<asio::steady_timer> timer,
              server::Lifecycle& lifecycle, std::uint64_t registration, http::ClientGone& client_gone)
      : control_(std::move(control)), timer_(std::move(timer)), lifecycle_(&lifecycle),
        registration_(registration), client_gone_(&client_gone) {}
  WatchEnders(WatchEnders&&) noexcept = default;
  WatchEnders& operator=(WatchEnders&&) = delete;
  ~WatchEnders() {
    if (!control_) return;  // moved from
    client_gone_->forget();
    control_->stream = nullptr;
    timer_->cancel();
    lifecycle_->remove_long_running(registration_);
  }

 private:
  std::shared_ptr<WatchControl> control_;
  std::shared_ptr<asio::steady_timer> timer_;
  server::Lifecycle* lifecycle_;
  std::uint64_t registration_;
  http::ClientGone* client_gone_;
};

// One event's bytes on the wire (kube's watch encoder and framer), apart from the loop that writes them so that
// the loop's coroutine frame, which every idle watcher keeps, holds none of this work's temporaries.
class EventEncoder {
 public:
  // An event's bytes: the line or frame every watcher of the change shares, or this watcher's own.
  struct Chunk {
    std::shared_ptr<const std::string> shared;
    std::string own;
    std::string_view bytes() const { return shared ? std::string_view(*shared) : std::string_view(own); }
  };

  EventEncoder(const Scope& scope, Representation representation, bool protobuf)
      : catalog_(scope.catalog), store_(scope.store), representation_(representation), protobuf_(protobuf) {}

  // What to write for `event`; nothing ends the stream (an object with no protobuf form).
  std::optional<Chunk> encode(const storage::SharedWatchEvent& event) {
    const bool carries_object =
        event.type != storage::WatchEventType::Error && event.type != storage::WatchEventType::Bookmark;
    if (carries_object && representation_ == Representation::Object) return object_event(event);
    return other_event(event);
  }

 private:
  static std::string as_json(const storage::SharedWatchEvent& event) {
    return registry::with_resource_version(event.object->value, event.revision);
  }

  // The object's bytes are the same for every watcher of this change: encoded once per format.
  std::optional<Chunk> object_event(const storage::SharedWatchEvent& event) {
    const std::string_view type = type_name(event.type);
    if (protobuf_) {
      try {
        auto envelope = encoded(event, "protobuf", [&] {
          json::value value = registry::parse_json(as_json(event));
          return schema::Transcoder(catalog_).encode(value.as_object());
        });
        return Chunk{nullptr, schema::length_delimited_frame(schema::Transcoder::watch_event(type, *envelope))};
      } catch (const schema::TranscodeError&) {
        return std::nullopt;  // an object with no protobuf form ends the stream, as before
      }
    }
    // The whole line too: with thousands of watchers, building it per watcher was a copy of the object per
    // delivery. (The type is part of the key: a watcher whose selector the object enters or leaves sends the same
    // change as ADDED or DELETED.)
    return Chunk{encoded(event, json_line_format(event.type), [&] {
      const std::string object = as_json(event);
      std::string text;
      text.reserve(object.size() + 32);
      text.append("{\"type\":\"").append(type).append("\",\"object\":").append(object).append("}\n");
      return text;
    }), {}};
  }

  // Errors, bookmarks, and objects as tables or metadata: this watcher's own.
  std::optional<Chunk> other_event(const storage::SharedWatchEvent& event) {
    const auto& definition = store_.definition();
    json::object out;
    out["type"] = type_name(event.type);
    if (event.type == storage::WatchEventType::Error) {
      apierrors::Status status = event.error ? registry::interpret_storage_error(*event.error, definition, "", "watch")
                                             : apierrors::internal_error("watch failed");
      if (event.error && event.error->code() == storage::ErrorCode::Expired) status = apierrors::gone(event.error->what());
      out["object"] = json::parse(apierrors::to_json(status));
    } else if (event.type == storage::WatchEventType::Bookmark) {
      json::object metadata{{"resourceVersion", std::to_string(event.revision)}, {"creationTimestamp", nullptr}};
      if (event.initial_events_end) metadata["annotations"] = json::object{{"k8s.io/initial-events-end", "true"}};
      out["object"] = json::object{{"kind", definition.kind}, {"apiVersion", definition.group_version()},
                                   {"metadata", std::move(metadata)}};
    } else {
      json::value value = registry::parse_json(as_json(event));
      if (representation_ == Representation::Table) {
        std::vector<json::object> objects{std::move(value.as_object())};
        json::object table = to_table(store_.strategy(), objects, !table_headers_sent_);
        table["metadata"] = json::object{{"resourceVersion", std::to_string(event.revision)}};
        table_headers_sent_ = true;
        out["object"] = std::move(table);
      } else {
        out["object"] = partial_object_metadata(value.as_object());
      }
    }
    if (protobuf_) {
      // Length-prefixed WatchEvents whose object is enveloped (kube's raw stream serializer and framer).
      std::string frame = protobuf_watch_frame(catalog_, out["type"].as_string(), out["object"]);
      if (frame.empty()) return std::nullopt;
      return Chunk{nullptr, std::move(frame)};
    }
    return Chunk{nullptr, json::serialize(out) + "\n"};
  }

  const schema::Catalog& catalog_;
  registry::Store& store_;
  Representation representation_;
  bool protobuf_;
  bool table_headers_sent_ = false;
};

// The events, once the response has begun: the part of a watch that lasts. It runs after the filter stages and
// routes that admitted the watch have returned (Exchange::handed_off), so it holds what it needs itself and
// writes through the exchange's writer as it is then. `enders` is held until the stream ends.
asio::awaitable<void> stream_events(Scope scope, std::unique_ptr<storage::WatchStream> stream,
                                    [[maybe_unused]] WatchEnders enders, EventEncoder encoder) {
  http::ResponseWriter& response = *scope.exchange.response;
  try {
    for (;;) {
      auto event = co_await stream->next_shared();
      if (!event) break;
      std::optional<EventEncoder::Chunk> chunk = encoder.encode(*event);
      if (!chunk) break;
      co_await response.write_chunk(chunk->bytes());
      if (event->type == storage::WatchEventType::Error) break;
    }
  } catch (const apierrors::ApiError&) {
    // What the route did with an error once the response had begun (the stream ends; the Status cannot be sent).
    co_return;
  }
  co_await response.end_stream();
}

}  // namespace

asio::awaitable<void> watch(Scope scope) {
  const auto& query = scope.query();
  registry::ListRequest list = list_request(scope, true);
  storage::WatchOptions options;
  options.resource_version = list.resource_version;
  options.predicate = std::move(list.predicate);
  options.progress_notify = request::query_flag(query, "allowWatchBookmarks");
  options.send_initial_events = request::query_flag(query, "sendInitialEvents");
  if (!scope.info.name.empty()) options.recursive = true;  // metadata.name is part of the field selector
  std::chrono::seconds timeout = default_watch_timeout();
  if (auto seconds = query.get("timeoutSeconds"); seconds && !seconds->empty()) {
    long value = 0;
    auto [end, error] = std::from_chars(seconds->data(), seconds->data() + seconds->size(), value);
    if (error != std::errc() || end != seconds->data() + seconds->size() || value < 0)
      throw apierrors::ApiError(apierrors::bad_request("timeoutSeconds: Invalid value: \"" + std::string(*seconds) + "\""));
    if (value > 0) timeout = std::chrono::seconds(value);
  }
  const Output output = negotiate(scope.request(), has_protobuf_form(scope));
  const Representation representation = output.representation;
  const bool protobuf = output.encoding == Encoding::Protobuf;

  std::unique_ptr<storage::WatchStream> stream = co_await scope.store.watch(scope.info.namespace_, std::move(options));
  auto executor = co_await asio::this_coro::executor;
  auto control = std::make_shared<WatchControl>();
  control->stream = stream.get();
  auto registration = scope.lifecycle.add_long_running(executor, [control] { control->end(); });
  // A client that leaves (an HTTP/2 stream it resets) ends its watch now, not at the next event or the timeout.
  http::ClientGone& client_gone = scope.exchange.request.client_gone;
  client_gone.on_gone([control] { control->end(); });
  auto timer = std::make_shared<asio::steady_timer>(executor, timeout);
  timer->async_wait([control](const asio::error_code& error) {
    if (!error) control->end();
  });
  WatchEnders enders(control, std::move(timer), scope.lifecycle, registration, client_gone);

  auto& response = *scope.exchange.response;
  response.headers().set("Content-Type", protobuf ? std::string(kProtobufWatchMediaType) : "application/json");
  co_await response.begin_stream(200);
  // Admitted and begun: the stages and routes that got the watch here need not stay for its hours of events.
  scope.exchange.handed_off =
      stream_events(scope, std::move(stream), std::move(enders), EventEncoder(scope, representation, protobuf));
}

}  // namespace kapi::endpoints::handlers
