// STREAM-style copy bandwidth and a cache flush, both with the benchmark's thread count.
#pragma once

#include <cstddef>
#include <vector>

namespace bench {

// Copies `bytes` from one buffer to another with `threads` OpenMP threads (each copies its own chunk
// with memcpy). Bandwidth counts bytes read + bytes written (2 * bytes), as STREAM's Copy does.
class CopyBench {
public:
    CopyBench(size_t bytes, int threads);
    ~CopyBench();
    CopyBench(const CopyBench &) = delete;
    CopyBench &operator=(const CopyBench &) = delete;
    double seconds();                           // one timed copy
    std::vector<double> gbps(int repetitions);  // one sample per copy
    size_t bytes() const { return bytes_; }

private:
    size_t bytes_;
    int threads_;
    char *src_ = nullptr, *dst_ = nullptr;
};

// Evicts the caches: writes then reads a buffer several times the last-level cache, with every thread.
class CacheFlusher {
public:
    CacheFlusher(size_t bytes, int threads);
    ~CacheFlusher();
    CacheFlusher(const CacheFlusher &) = delete;
    CacheFlusher &operator=(const CacheFlusher &) = delete;
    void flush();
    size_t bytes() const { return bytes_; }

private:
    size_t bytes_;
    int threads_;
    long *buffer_ = nullptr;
    unsigned pass_ = 0;
};

// Last-level cache size from sysfs (what this VM reports), or 0.
size_t lastLevelCacheBytes();

double median(std::vector<double> values);

}  // namespace bench
