// WATCH (handlers/watch.go): a chunked stream of {"type":...,"object":...} lines until timeoutSeconds, the
// client leaving, the storage ending the watch, or the server shutting down.
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
#include <random>

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

}  // namespace

asio::awaitable<void> watch(Scope scope) {
  const auto& query = scope.query();
  const auto& definition = scope.store.definition();
  registry::ListRequest list = list_request(scope);
  storage::WatchOptions options;
  options.resource_version = list.resource_version;
  options.predicate = std::move(list.predicate);
  options.progress_notify = query.get("allowWatchBookmarks").value_or("") == "true";
  options.send_initial_events = query.get("sendInitialEvents").value_or("") == "true";
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
  struct Cleanup {
    std::shared_ptr<WatchControl> control;
    std::shared_ptr<asio::steady_timer> timer;
    server::Lifecycle& lifecycle;
    std::uint64_t registration;
    http::ClientGone& client_gone;
    ~Cleanup() {
      client_gone.forget();
      control->stream = nullptr;
      timer->cancel();
      lifecycle.remove_long_running(registration);
    }
  } cleanup{control, timer, scope.lifecycle, registration, client_gone};

  auto& response = *scope.exchange.response;
  response.headers().set("Content-Type", protobuf ? std::string(kProtobufWatchMediaType) : "application/json");
  co_await response.begin_stream(200);
  bool table_headers_sent = false;
  for (;;) {
    auto event = co_await stream->next_shared();
    if (!event) break;
    const bool carries_object =
        event->type != storage::WatchEventType::Error && event->type != storage::WatchEventType::Bookmark;
    auto as_json = [&event] { return registry::with_resource_version(event->object->value, event->revision); };
    if (carries_object && representation == Representation::Object) {
      // The object's bytes are the same for every watcher of this change: encoded once per format.
      const std::string_view type = type_name(event->type);
      if (protobuf) {
        std::string frame;
        try {
          auto envelope = encoded(*event, "protobuf", [&] {
            json::value value = registry::parse_json(as_json());
            return schema::Transcoder(scope.catalog).encode(value.as_object());
          });
          frame = schema::length_delimited_frame(schema::Transcoder::watch_event(type, *envelope));
        } catch (const schema::TranscodeError&) {
          break;  // an object with no protobuf form ends the stream, as before
        }
        co_await response.write_chunk(frame);
      } else {
        // The whole line too: with thousands of watchers, building it per watcher was a copy of the object
        // per delivery. (The type is part of the key: a watcher whose selector the object enters or leaves
        // sends the same change as ADDED or DELETED.)
        auto line = encoded(*event, json_line_format(event->type), [&] {
          const std::string object = as_json();
          std::string text;
          text.reserve(object.size() + 32);
          text.append("{\"type\":\"").append(type).append("\",\"object\":").append(object).append("}\n");
          return text;
        });
        co_await response.write_chunk(*line);
      }
      continue;
    }

    json::object out;
    out["type"] = type_name(event->type);
    if (event->type == storage::WatchEventType::Error) {
      apierrors::Status status = event->error ? registry::interpret_storage_error(*event->error, definition, "", "watch")
                                              : apierrors::internal_error("watch failed");
      if (event->error && event->error->code() == storage::ErrorCode::Expired) status = apierrors::gone(event->error->what());
      out["object"] = json::parse(apierrors::to_json(status));
    } else if (event->type == storage::WatchEventType::Bookmark) {
      json::object metadata{{"resourceVersion", std::to_string(event->revision)}, {"creationTimestamp", nullptr}};
      if (event->initial_events_end) metadata["annotations"] = json::object{{"k8s.io/initial-events-end", "true"}};
      out["object"] = json::object{{"kind", definition.kind}, {"apiVersion", definition.group_version()},
                                   {"metadata", std::move(metadata)}};
    } else {
      json::value value = registry::parse_json(as_json());
      if (representation == Representation::Table) {
        std::vector<json::object> objects{std::move(value.as_object())};
        json::object table = to_table(scope.store.strategy(), objects, !table_headers_sent);
        table["metadata"] = json::object{{"resourceVersion", std::to_string(event->revision)}};
        table_headers_sent = true;
        out["object"] = std::move(table);
      } else {
        out["object"] = partial_object_metadata(value.as_object());
      }
    }
    if (protobuf) {
      // Length-prefixed WatchEvents whose object is enveloped (kube's raw stream serializer and framer).
      std::string frame = protobuf_watch_frame(scope.catalog, out["type"].as_string(), out["object"]);
      if (frame.empty()) break;
      co_await response.write_chunk(frame);
    } else {
      std::string line = json::serialize(out) + "\n";
      co_await response.write_chunk(line);
    }
    if (event->type == storage::WatchEventType::Error) break;
  }
  co_await response.end_stream();
}

}  // namespace kapi::endpoints::handlers
