// spdlog's compiled part, built into Rota's programs instead of linking
// libspdlog.so (see fmt_compiled.cc for why). With SPDLOG_COMPILED_LIB the
// headers only declare spdlog's non-template functions; their definitions are
// in the *-inl.h headers, compiled here once. The sink templates Rota uses
// (the colour console sinks of common/log.cc) are instantiated explicitly.
#ifndef SPDLOG_COMPILED_LIB
#error "spdlog_compiled.cc is built with SPDLOG_COMPILED_LIB"
#endif

#include <spdlog/common-inl.h>
#include <spdlog/details/backtracer-inl.h>
#include <spdlog/details/console_globals.h>
#include <spdlog/details/file_helper-inl.h>
#include <spdlog/details/log_msg-inl.h>
#include <spdlog/details/log_msg_buffer-inl.h>
#include <spdlog/details/null_mutex.h>
#include <spdlog/details/os-inl.h>
#include <spdlog/details/periodic_worker-inl.h>
#include <spdlog/details/registry-inl.h>
#include <spdlog/logger-inl.h>
#include <spdlog/pattern_formatter-inl.h>
#include <spdlog/sinks/ansicolor_sink-inl.h>
#include <spdlog/sinks/base_sink-inl.h>
#include <spdlog/sinks/sink-inl.h>
#include <spdlog/sinks/stdout_color_sinks-inl.h>
#include <spdlog/sinks/stdout_sinks-inl.h>
#include <spdlog/spdlog-inl.h>

#include <mutex>

namespace spdlog {

template class sinks::base_sink<std::mutex>;
template class sinks::base_sink<details::null_mutex>;

template class sinks::ansicolor_sink<details::console_mutex>;
template class sinks::ansicolor_sink<details::console_nullmutex>;
template class sinks::ansicolor_stdout_sink<details::console_mutex>;
template class sinks::ansicolor_stdout_sink<details::console_nullmutex>;
template class sinks::ansicolor_stderr_sink<details::console_mutex>;
template class sinks::ansicolor_stderr_sink<details::console_nullmutex>;

template std::shared_ptr<logger> stdout_color_mt<synchronous_factory>(const std::string&,
                                                                      color_mode);
template std::shared_ptr<logger> stderr_color_mt<synchronous_factory>(const std::string&,
                                                                      color_mode);
template std::shared_ptr<logger> stdout_color_st<synchronous_factory>(const std::string&,
                                                                      color_mode);
template std::shared_ptr<logger> stderr_color_st<synchronous_factory>(const std::string&,
                                                                      color_mode);

}  // namespace spdlog
