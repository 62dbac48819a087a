// Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe):
// commands go in on the child's fd 3, replies and events come back on fd 4, each message a JSON
// text ended by '\0'. No port, no WebSocket, no npm: only the browser and this file.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace flame_test {

class CdpBrowser {
public:
    // The browser to use: $RINGPROF_CHROMIUM, else chromium / chromium-browser /
    // google-chrome(-stable) on PATH; empty when none is found.
    static std::string find_chromium();

    // Starts the browser with a fresh profile under `work_dir`, opens one tab of the given size
    // and attaches to it. Throws std::runtime_error (with the browser's log path) on failure.
    CdpBrowser(const std::string& chromium, const std::string& work_dir, int width, int height);
    ~CdpBrowser();
    CdpBrowser(const CdpBrowser&) = delete;
    CdpBrowser& operator=(const CdpBrowser&) = delete;

    // Sends a command to the tab (or the browser when `to_browser`) and returns the reply's
    // "result" as JSON text. Throws on a protocol error or a timeout.
    std::string call(const std::string& method, const std::string& params_json = "{}", bool to_browser = false);

    void navigate(const std::string& url);          // returns after the load event
    std::string evaluate(const std::string& expr);  // a script whose value is a string
    void click(double x, double y);                 // press and release the left button
    void hover(double x, double y);
    void type(const std::string& text);                     // into the focused element
    void wheel(double x, double y, double delta_y);         // a mouse wheel turn (negative: away from the user)
    void drag(double x0, double y0, double x1, double y1);  // press, move in steps, release
    void double_click(double x, double y);
    void resize(int width, int height);  // the page's viewport, as a window resize
    std::string screenshot_png();        // the visible page, PNG bytes

    // Console errors, uncaught exceptions and error log entries seen so far.
    const std::vector<std::string>& page_errors() const { return errors_; }

private:
    std::string read_message(std::chrono::steady_clock::time_point deadline);
    void note_event(const std::string& message);
    void shut_down();

    pid_t pid_ = -1;
    int to_browser_ = -1, from_browser_ = -1;
    std::string buffer_;
    std::string profile_dir_, log_path_, session_;
    int next_id_ = 1;
    bool loaded_ = false;
    std::vector<std::string> errors_;
};

}  // namespace flame_test
