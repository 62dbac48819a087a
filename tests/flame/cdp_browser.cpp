#include "cdp_browser.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace flame_test {

namespace {

using Clock = std::chrono::steady_clock;
// How long the browser may take to answer one command: 45 s on an idle machine (a cold start of
// Chromium takes 1-3 s here), stretched by the load per core when the command is sent, so a loaded
// machine makes a test wait longer rather than fail; at most 10 minutes.
std::chrono::milliseconds answer_bound() {
    double load[1] = {0};
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double stretch = 1;
    if (getloadavg(load, 1) == 1 && cores > 0) stretch = std::max(1.0, load[0] / static_cast<double>(cores));
    return std::chrono::milliseconds(static_cast<std::int64_t>(std::min(600.0, 45.0 * stretch) * 1000));
}

std::string quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

// A pipe end moved above the descriptors the child will use, so dup2 onto 3 and 4 cannot clash.
int high_fd(int fd) {
    const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    return moved;
}

std::string base64_decode(std::string_view in) {
    auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    std::string out;
    unsigned bits = 0;
    int have = 0;
    for (char c : in) {
        const int v = value(c);
        if (v < 0) continue;
        bits = (bits << 6) | static_cast<unsigned>(v);
        have += 6;
        if (have >= 8) {
            have -= 8;
            out += static_cast<char>((bits >> have) & 0xff);
        }
    }
    return out;
}

}  // namespace

std::string CdpBrowser::find_chromium() {
    if (const char* env = std::getenv("RINGPROF_CHROMIUM"); env != nullptr && *env != '\0') return env;
    const char* path = std::getenv("PATH");
    std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
    for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
        std::size_t start = 0;
        while (start <= dirs.size()) {
            const std::size_t end = std::min(dirs.find(':', start), dirs.size());
            const std::string candidate = dirs.substr(start, end - start) + "/" + name;
            if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
            start = end + 1;
        }
    }
    return {};
}

CdpBrowser::CdpBrowser(const std::string& chromium, const std::string& work_dir, int width, int height) {
    // A browser that dies mid-write must fail the test, not kill it.
    signal(SIGPIPE, SIG_IGN);
    std::filesystem::create_directories(work_dir);
    profile_dir_ = work_dir + "/chromium-profile-" + std::to_string(getpid());
    std::filesystem::remove_all(profile_dir_);
    std::filesystem::create_directories(profile_dir_);
    log_path_ = work_dir + "/chromium.log";

    int in_pipe[2], out_pipe[2];  // in: we write, browser reads (fd 3); out: browser writes (fd 4)
    if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0) throw std::runtime_error("pipe() failed");
    in_pipe[0] = high_fd(in_pipe[0]);
    in_pipe[1] = high_fd(in_pipe[1]);
    out_pipe[0] = high_fd(out_pipe[0]);
    out_pipe[1] = high_fd(out_pipe[1]);

    std::vector<std::string> args = {chromium,
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--disable-quic",
                                     "--no-first-run",
                                     "--disable-background-networking",
                                     "--disable-component-update",
                                     "--disable-sync",
                                     "--disable-extensions",
                                     "--hide-scrollbars",
                                     "--remote-debugging-pipe",
                                     "--user-data-dir=" + profile_dir_,
                                     "about:blank"};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 3);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 4);
    posix_spawn_file_actions_addopen(&actions, 1, log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    const int rc = posix_spawn(&pid_, chromium.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in_pipe[0]);
    close(out_pipe[1]);
    to_browser_ = in_pipe[1];
    from_browser_ = out_pipe[0];
    if (rc != 0) {
        pid_ = -1;
        shut_down();
        throw std::runtime_error("cannot start " + chromium + ": " + std::strerror(rc));
    }

    try {
        simdjson::dom::parser parser;
        // The tab's size comes from device metrics below; createTarget's size is for windows only.
        const std::string target = call("Target.createTarget", "{\"url\":\"about:blank\"}", true);
        const std::string target_id(std::string_view(parser.parse(target)["targetId"]));
        const std::string attached =
            call("Target.attachToTarget", "{\"targetId\":" + quote(target_id) + ",\"flatten\":true}", true);
        session_ = std::string(std::string_view(parser.parse(attached)["sessionId"]));
        call("Page.enable");
        call("Runtime.enable");
        call("Log.enable");
        call("Emulation.setDeviceMetricsOverride", "{\"width\":" + std::to_string(width) +
                                                       ",\"height\":" + std::to_string(height) +
                                                       ",\"deviceScaleFactor\":1,\"mobile\":false}");
    } catch (...) {
        shut_down();
        throw;
    }
}

CdpBrowser::~CdpBrowser() { shut_down(); }

void CdpBrowser::shut_down() {
    if (pid_ > 0) {
        if (to_browser_ >= 0) {
            const std::string bye = "{\"id\":999999,\"method\":\"Browser.close\"}";
            (void)!write(to_browser_, bye.c_str(), bye.size() + 1);
            close(to_browser_);
            to_browser_ = -1;
        }
        const auto deadline = Clock::now() + std::chrono::seconds(5);
        int status = 0;
        while (waitpid(pid_, &status, WNOHANG) == 0) {
            if (Clock::now() > deadline) {
                kill(pid_, SIGKILL);
                waitpid(pid_, &status, 0);
                break;
            }
            // Keep reading so a browser still writing events never blocks on a full pipe.
            pollfd p{from_browser_, POLLIN, 0};
            if (from_browser_ >= 0 && poll(&p, 1, 20) > 0) {
                char sink[65536];
                if (read(from_browser_, sink, sizeof sink) <= 0)
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
            } else {
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
        }
        pid_ = -1;
    }
    if (to_browser_ >= 0) close(to_browser_);
    if (from_browser_ >= 0) close(from_browser_);
    to_browser_ = from_browser_ = -1;
    std::error_code ignored;
    if (!profile_dir_.empty()) std::filesystem::remove_all(profile_dir_, ignored);
}

std::string CdpBrowser::read_message(Clock::time_point deadline) {
    for (;;) {
        const auto end = buffer_.find('\0');
        if (end != std::string::npos) {
            std::string message = buffer_.substr(0, end);
            buffer_.erase(0, end + 1);
            return message;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) throw std::runtime_error("no answer from the browser in time (log: " + log_path_ + ")");
        pollfd p{from_browser_, POLLIN, 0};
        const int ready = poll(&p, 1, static_cast<int>(left));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;
        char chunk[65536];
        const ssize_t n = read(from_browser_, chunk, sizeof chunk);
        if (n <= 0) throw std::runtime_error("the browser closed its DevTools pipe (log: " + log_path_ + ")");
        buffer_.append(chunk, static_cast<std::size_t>(n));
    }
}

void CdpBrowser::note_event(const std::string& message) {
    simdjson::dom::parser parser;
    simdjson::dom::element m;
    if (parser.parse(message).get(m)) return;
    std::string_view method;
    if (m["method"].get(method)) return;
    const simdjson::dom::element params = m["params"];
    if (method == "Page.loadEventFired") {
        loaded_ = true;
    } else if (method == "Runtime.consoleAPICalled") {
        std::string_view type;
        if (!params["type"].get(type) && (type == "error" || type == "assert")) {
            errors_.push_back("console." + std::string(type) + ": " + simdjson::to_string(params["args"]));
        }
    } else if (method == "Runtime.exceptionThrown") {
        errors_.push_back("uncaught exception: " + simdjson::to_string(params["exceptionDetails"]));
    } else if (method == "Log.entryAdded") {
        std::string_view level;
        if (!params["entry"]["level"].get(level) && level == "error") {
            errors_.push_back("log error: " + simdjson::to_string(params["entry"]));
        }
    }
}

std::string CdpBrowser::call(const std::string& method, const std::string& params_json, bool to_browser) {
    const int id = next_id_++;
    std::string msg = "{\"id\":" + std::to_string(id) + ",\"method\":" + quote(method) + ",\"params\":" + params_json;
    if (!to_browser && !session_.empty()) msg += ",\"sessionId\":" + quote(session_);
    msg += "}";
    msg.push_back('\0');
    for (std::size_t done = 0; done < msg.size();) {
        const ssize_t n = write(to_browser_, msg.data() + done, msg.size() - done);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            throw std::runtime_error("cannot send " + method + " to the browser (log: " + log_path_ + ")");
        }
        done += static_cast<std::size_t>(n);
    }
    const auto deadline = Clock::now() + answer_bound();
    simdjson::dom::parser parser;
    for (;;) {
        const std::string reply = read_message(deadline);
        simdjson::dom::element m;
        if (parser.parse(reply).get(m)) continue;
        int64_t reply_id;
        if (m["id"].get(reply_id)) {
            note_event(reply);
            continue;
        }
        if (reply_id != id) continue;
        simdjson::dom::element error;
        if (!m["error"].get(error)) throw std::runtime_error(method + " failed: " + simdjson::to_string(error));
        return simdjson::to_string(m["result"]);
    }
}

void CdpBrowser::navigate(const std::string& url) {
    loaded_ = false;
    errors_.clear();
    call("Page.navigate", "{\"url\":" + quote(url) + "}");
    const auto deadline = Clock::now() + answer_bound();
    while (!loaded_) note_event(read_message(deadline));
}

std::string CdpBrowser::evaluate(const std::string& expr) {
    const std::string result =
        call("Runtime.evaluate", "{\"expression\":" + quote(expr) + ",\"returnByValue\":true,\"awaitPromise\":true}");
    simdjson::dom::parser parser;
    const simdjson::dom::element r = parser.parse(result);
    simdjson::dom::element details;
    if (!r["exceptionDetails"].get(details)) {
        throw std::runtime_error("script failed: " + expr + ": " + simdjson::to_string(details));
    }
    std::string_view value;
    if (r["result"]["value"].get(value)) throw std::runtime_error("script did not return a string: " + expr);
    return std::string(value);
}

void CdpBrowser::hover(double x, double y) {
    call("Input.dispatchMouseEvent", "{\"type\":\"mouseMoved\",\"x\":" + number(x) + ",\"y\":" + number(y) + "}");
}

void CdpBrowser::click(double x, double y) {
    hover(x, y);
    const std::string at = ",\"x\":" + number(x) + ",\"y\":" + number(y) + ",\"button\":\"left\",\"clickCount\":1";
    call("Input.dispatchMouseEvent", "{\"type\":\"mousePressed\"" + at + ",\"buttons\":1}");
    call("Input.dispatchMouseEvent", "{\"type\":\"mouseReleased\"" + at + ",\"buttons\":0}");
}

void CdpBrowser::wheel(double x, double y, double delta_y) {
    hover(x, y);
    call("Input.dispatchMouseEvent", "{\"type\":\"mouseWheel\",\"x\":" + number(x) + ",\"y\":" + number(y) +
                                         ",\"deltaX\":0,\"deltaY\":" + number(delta_y) + "}");
}

void CdpBrowser::drag(double x0, double y0, double x1, double y1) {
    hover(x0, y0);
    const auto at = [](double x, double y) {
        return ",\"x\":" + number(x) + ",\"y\":" + number(y) + ",\"button\":\"left\"";
    };
    call("Input.dispatchMouseEvent", "{\"type\":\"mousePressed\"" + at(x0, y0) + ",\"buttons\":1,\"clickCount\":1}");
    for (int i = 1; i <= 5; ++i) {
        const double f = i / 5.0;
        call("Input.dispatchMouseEvent",
             "{\"type\":\"mouseMoved\"" + at(x0 + (x1 - x0) * f, y0 + (y1 - y0) * f) + ",\"buttons\":1}");
    }
    call("Input.dispatchMouseEvent", "{\"type\":\"mouseReleased\"" + at(x1, y1) + ",\"buttons\":0,\"clickCount\":1}");
}

void CdpBrowser::double_click(double x, double y) {
    hover(x, y);
    const std::string at = ",\"x\":" + number(x) + ",\"y\":" + number(y) + ",\"button\":\"left\"";
    for (int count = 1; count <= 2; ++count) {
        const std::string n = ",\"clickCount\":" + std::to_string(count);
        call("Input.dispatchMouseEvent", "{\"type\":\"mousePressed\"" + at + n + ",\"buttons\":1}");
        call("Input.dispatchMouseEvent", "{\"type\":\"mouseReleased\"" + at + n + ",\"buttons\":0}");
    }
}

void CdpBrowser::resize(int width, int height) {
    call("Emulation.setDeviceMetricsOverride", "{\"width\":" + std::to_string(width) +
                                                   ",\"height\":" + std::to_string(height) +
                                                   ",\"deviceScaleFactor\":1,\"mobile\":false}");
}

void CdpBrowser::type(const std::string& text) { call("Input.insertText", "{\"text\":" + quote(text) + "}"); }

std::string CdpBrowser::screenshot_png() {
    const std::string result = call("Page.captureScreenshot", "{\"format\":\"png\"}");
    simdjson::dom::parser parser;
    return base64_decode(std::string_view(parser.parse(result)["data"]));
}

}  // namespace flame_test
