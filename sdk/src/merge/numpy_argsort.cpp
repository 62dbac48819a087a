#include "merge/numpy_argsort.hpp"

#include <utility>

namespace ringprof::detail {

namespace {

constexpr std::ptrdiff_t kSmallQuicksort = 15;  // numpy's SMALL_QUICKSORT
constexpr int kStackSize = 128;                 // numpy's PYA_QS_STACK (NPY_BITSOF_INTP * 2)

int most_significant_bit(std::size_t n) {
    int depth = 0;
    while (n >>= 1) ++depth;
    return depth;
}

// numpy's aheapsort_ over tosort[0, n).
void heapsort(const std::int64_t* v, std::size_t* tosort, std::ptrdiff_t n) {
    std::size_t* a = tosort - 1;  // one-based, as numpy indexes its heap
    std::ptrdiff_t i, j, l;
    std::size_t tmp;
    for (l = n >> 1; l > 0; --l) {
        tmp = a[l];
        for (i = l, j = l << 1; j <= n;) {
            if (j < n && v[a[j]] < v[a[j + 1]]) j += 1;
            if (v[tmp] < v[a[j]]) {
                a[i] = a[j];
                i = j;
                j += j;
            } else {
                break;
            }
        }
        a[i] = tmp;
    }
    for (; n > 1;) {
        tmp = a[n];
        a[n] = a[1];
        n -= 1;
        for (i = 1, j = 2; j <= n;) {
            if (j < n && v[a[j]] < v[a[j + 1]]) j++;
            if (v[tmp] < v[a[j]]) {
                a[i] = a[j];
                i = j;
                j += j;
            } else {
                break;
            }
        }
        a[i] = tmp;
    }
}

}  // namespace

std::vector<std::size_t> numpy_argsort(const std::vector<std::int64_t>& keys) {
    const std::size_t num = keys.size();
    std::vector<std::size_t> order(num);
    for (std::size_t i = 0; i < num; ++i) order[i] = i;
    if (num < 2) return order;
    const std::int64_t* v = keys.data();
    std::size_t* pl = order.data();
    std::size_t* pr = order.data() + num - 1;
    std::size_t* stack[kStackSize];
    std::size_t** sptr = stack;
    int depth[kStackSize];
    int* psdepth = depth;
    int cdepth = most_significant_bit(num) * 2;
    std::size_t *pm, *pi, *pj, *pk;
    for (;;) {
        if (cdepth < 0) {
            heapsort(v, pl, pr - pl + 1);
            goto stack_pop;
        }
        while ((pr - pl) > kSmallQuicksort) {
            pm = pl + ((pr - pl) >> 1);
            if (v[*pm] < v[*pl]) std::swap(*pm, *pl);
            if (v[*pr] < v[*pm]) std::swap(*pr, *pm);
            if (v[*pm] < v[*pl]) std::swap(*pm, *pl);
            const std::int64_t vp = v[*pm];
            pi = pl;
            pj = pr - 1;
            std::swap(*pm, *pj);
            for (;;) {
                do ++pi;
                while (v[*pi] < vp);
                do --pj;
                while (vp < v[*pj]);
                if (pi >= pj) break;
                std::swap(*pi, *pj);
            }
            pk = pr - 1;
            std::swap(*pi, *pk);
            // The larger part waits on the stack.
            if (pi - pl < pr - pi) {
                *sptr++ = pi + 1;
                *sptr++ = pr;
                pr = pi - 1;
            } else {
                *sptr++ = pl;
                *sptr++ = pi - 1;
                pl = pi + 1;
            }
            *psdepth++ = --cdepth;
        }
        for (pi = pl + 1; pi <= pr; ++pi) {  // insertion sort
            const std::size_t vi = *pi;
            const std::int64_t vp = v[vi];
            pj = pi;
            pk = pi - 1;
            while (pj > pl && vp < v[*pk]) *pj-- = *pk--;
            *pj = vi;
        }
    stack_pop:
        if (sptr == stack) break;
        pr = *(--sptr);
        pl = *(--sptr);
        cdepth = *(--psdepth);
    }
    return order;
}

}  // namespace ringprof::detail
