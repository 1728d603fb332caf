#include "memory_bench.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>

namespace bench {
namespace {

char *allocatePages(size_t bytes) {
    void *p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<char *>(p);
}

volatile long sink;

}  // namespace

CopyBench::CopyBench(size_t bytes, int threads) : bytes_(bytes), threads_(threads) {
    src_ = allocatePages(bytes);
    dst_ = allocatePages(bytes);
    // First touch by the threads that will copy.
#pragma omp parallel num_threads(threads_)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        const size_t begin = bytes_ * t / n, end = bytes_ * (t + 1) / n;
        std::memset(src_ + begin, t + 1, end - begin);
        std::memset(dst_ + begin, 0, end - begin);
    }
}

CopyBench::~CopyBench() {
    std::free(src_);
    std::free(dst_);
}

double CopyBench::seconds() {
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads_)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        const size_t begin = bytes_ * t / n / 64 * 64, end = t + 1 == n ? bytes_ : bytes_ * (t + 1) / n / 64 * 64;
        std::memcpy(dst_ + begin, src_ + begin, end - begin);
    }
    const auto stop = std::chrono::steady_clock::now();
    sink = dst_[bytes_ / 2];
    return std::chrono::duration<double>(stop - start).count();
}

std::vector<double> CopyBench::gbps(int repetitions) {
    std::vector<double> samples;
    seconds();  // warm the pages and the threads
    for (int r = 0; r < repetitions; ++r) samples.push_back(2.0 * static_cast<double>(bytes_) / seconds() / 1e9);
    return samples;
}

CacheFlusher::CacheFlusher(size_t bytes, int threads) : bytes_(bytes), threads_(threads) {
    buffer_ = reinterpret_cast<long *>(allocatePages(bytes));
    std::memset(buffer_, 0, bytes);
}

CacheFlusher::~CacheFlusher() { std::free(buffer_); }

void CacheFlusher::flush() {
    const size_t count = bytes_ / sizeof(long);
    const long value = static_cast<long>(++pass_);
    long total = 0;
#pragma omp parallel for num_threads(threads_) schedule(static) reduction(+ : total)
    for (size_t i = 0; i < count; i += 8) {
        buffer_[i] += value;
        total += buffer_[i];
    }
    sink = total;
}

size_t lastLevelCacheBytes() {
    size_t best = 0;
    for (int index = 0; index < 8; ++index) {
        std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
        std::string text;
        if (!(file >> text) || text.empty()) continue;
        size_t value = std::strtoull(text.c_str(), nullptr, 10);
        if (text.back() == 'K') value <<= 10;
        if (text.back() == 'M') value <<= 20;
        best = std::max(best, value);
    }
    return best;
}

double median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace bench
