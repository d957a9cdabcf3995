// jemalloc reads its options from this symbol when the process starts (linked only into builds that use it, see
// meson.build). Freed pages go back to the system within about a second, by jemalloc's own background thread
// rather than on a request's path, so kapi's RSS follows what it holds rather than what it once held.
extern "C" {
const char* malloc_conf = "background_thread:true,max_background_threads:1,dirty_decay_ms:1000,muzzy_decay_ms:0";
}
