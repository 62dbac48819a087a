// Append-only text written through a raw pointer, for the merge's per-event formatting: appending
// small pieces to a std::string (a capacity check and an out-of-line call each) was the largest
// single cost of formatting merged events (callgrind, bench_merge input: _M_append 7% of a merge).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>

#include "merge/chunk_pool.hpp"

namespace ringprof::detail {

class TextBuffer {
public:
    // At least n writable bytes at the end; write them, then advance().
    char* room(std::size_t n) {
        if (cap_ - size_ < n) grow(n);
        return data_.get() + size_;
    }
    void advance(std::size_t n) { size_ += n; }
    void append(std::string_view s) {
        std::memcpy(room(s.size()), s.data(), s.size());
        size_ += s.size();
    }
    template <std::size_t N>
    void append_literal(const char (&s)[N]) {  // a constant: the copy is inlined
        std::memcpy(room(N - 1), s, N - 1);
        size_ += N - 1;
    }
    void push_back(char c) {
        *room(1) = c;
        ++size_;
    }

    std::size_t size() const { return size_; }
    const char* data() const { return data_.get(); }
    std::string_view view() const { return {data_.get(), size_}; }
    void clear() { size_ = 0; }
    void reserve(std::size_t n) {
        if (n > cap_) grow(n - size_);
    }
    std::size_t capacity() const { return cap_; }
    // Hands the bytes over, leaving the buffer empty: the merge keeps a batch's text as its stored
    // records instead of copying it.
    MemoryBlock release() {
        size_ = cap_ = 0;
        return std::move(data_);
    }
    // The first chunk of room comes from the pool; only growth beyond it (an event larger than
    // what is left of the chunk) goes to malloc.
    void take_from(ChunkPool* pool) { pool_ = pool; }

private:
    void grow(std::size_t n) {
        if (pool_ && size_ == 0 && n <= pool_->chunk_bytes()) {
            data_ = pool_->take();
            cap_ = pool_->chunk_bytes();
            return;
        }
        std::size_t cap = cap_ ? cap_ * 2 : 4096;
        while (cap - size_ < n) cap *= 2;
        char* bigger = static_cast<char*>(std::malloc(cap));  // left uninitialised: only written bytes are read
        if (!bigger) throw std::bad_alloc();
        if (size_) std::memcpy(bigger, data_.get(), size_);
        data_ = MemoryBlock(bigger);
        cap_ = cap;
    }

    MemoryBlock data_;
    ChunkPool* pool_ = nullptr;
    std::size_t size_ = 0, cap_ = 0;
};

}  // namespace ringprof::detail
