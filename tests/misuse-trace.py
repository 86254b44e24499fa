#!/usr/bin/env python3
"""Writes an ftrace text trace (tracefs `trace` format) of a kernel that
misuses its allocators in known ways, among the noise a healthy kernel
makes, for tests/t0620-misuse.sh:

    misuse-trace.py RELEASE >trace.txt

RELEASE is 5.10 or 6.18: the noise is what that kernel makes innocently
(6.18: kfree() of kmem_cache objects, sk_buffs and pages allocated in bulk
without events, maple nodes freed through kfree_rcu() sheaves), and so are
some of the planted findings (a kfree() of a kmem_cache object and a page
freed twice are misuse only on 5.10).  Every planted finding's callsite
starts with "planted_" (a page's free has none: its pfn is 0x7770), and
the first line of the file lists them as "# planted: kind@callsite ...".
The text carries no kernel release: give it with report --kernel.
"""
import sys

release = sys.argv[1] if len(sys.argv) > 1 else "5.10"
if release not in ("5.10", "6.18"):
    sys.exit("usage: misuse-trace.py 5.10|6.18")
new = release == "6.18"

lines = []
t = 500.0
planted = []


def ev(name, fields, pid=100, comm="app", cpu=0, dt=0.000010):
    global t
    t += dt
    lines.append("%16s-%-5d [%03d] .....  %.6f: %s: %s" %
                 (comm, pid, cpu, t, name, fields))


def kmalloc(site, ptr, req, alloc, **kw):
    ev("kmalloc", "call_site=%s ptr=%016x bytes_req=%d bytes_alloc=%d "
       "gfp_flags=GFP_KERNEL node=-1 accounted=false" %
       (site, ptr, req, alloc), **kw)


def cache_alloc(site, ptr, cache, size, **kw):
    ev("kmem_cache_alloc", "call_site=%s ptr=%016x name=%s bytes_req=%d "
       "bytes_alloc=%d gfp_flags=GFP_KERNEL node=-1 accounted=false" %
       (site, ptr, cache, size, size), **kw)


def kfree(site, ptr, **kw):
    ev("kfree", "call_site=%s ptr=%016x" % (site, ptr), **kw)


def cache_free(site, ptr, cache, **kw):
    ev("kmem_cache_free", "call_site=%s ptr=%016x name=%s" %
       (site, ptr, cache), **kw)


def page_alloc(pfn, order=0, **kw):
    ev("mm_page_alloc", "page=%016x pfn=0x%x order=%d migratetype=1 "
       "gfp_flags=GFP_HIGHUSER_MOVABLE" % (0xfffff000 + pfn, pfn, order),
       **kw)


def page_free(pfn, order=0, **kw):
    ev("mm_page_free", "page=%016x pfn=0x%x order=%d" %
       (0xfffff000 + pfn, pfn, order), **kw)


def S(name, off=0x10):
    return "%s+0x%x/0x200" % (name, off)


def background(n, base):
    """what every kernel does: objects and pages allocated and freed"""
    for i in range(n):
        p = base + 0x40 * (i % 64)
        kmalloc(S("seq_buf_alloc"), p, 56, 64, pid=200 + i % 5, comm="cat")
        kfree(S("seq_release"), p, pid=200 + i % 5, comm="cat")
        q = base + 0x100000 + 0xc0 * (i % 32)
        cache_alloc(S("alloc_empty_file", 0x3c), q, "filp", 192)
        cache_free(S("__fput", 0x141), q, "filp", cpu=1)
        page_alloc(0x200000 + i % 128)
        page_free(0x200000 + i % 128, cpu=1)


# the recording starts mid-life: frees of older objects and pages
for i in range(20):
    cache_free(S("exit_mmap", 0x1b7), 0xffff888100a00000 + 0xc8 * i,
               "vm_area_struct", pid=300, comm="make")
    page_free(0x300000 + i)
kfree(S("old_cleanup"), 0xffff888100b00000)
background(300, 0xffff888110000000)

# 1.5 s in: past the one-second warm-up
t += 1.5

# noise every kernel makes: more older objects freed by teardown, RCU
# and the callsites that freed older objects in the warm-up; page cache
# pages older than the recording; allocations that may fail
for i in range(5):
    cache_free(S("exit_mmap", 0x1b7), 0xffff888100c00000 + 0xc8 * i,
               "vm_area_struct", pid=301, comm="sh")
kfree(S("put_files_struct.part.0", 0x8f), 0xffff888100d00000, pid=301,
      comm="sh")
cache_free(S("do_exit", 0x779), 0xffff888100d10000, "files_cache", pid=301,
           comm="sh")
cache_free(S("rcu_do_batch", 0x1b7), 0xffff888100d20000, "dentry", pid=0,
           comm="<idle>")
kfree(S("old_cleanup"), 0xffff888100b00100)
for i in range(30):
    page_free(0x310000 + i, pid=40, comm="kswapd0")
ev("kmalloc", "call_site=%s ptr=%016x bytes_req=8192 bytes_alloc=8192 "
   "gfp_flags=GFP_NOWAIT|__GFP_NOWARN node=-1 accounted=false" %
   (S("try_alloc_buf"), 0))
ev("mm_page_alloc", "page=%016x pfn=0x0 order=3 migratetype=0 "
   "gfp_flags=GFP_NOWAIT|__GFP_NORETRY|__GFP_NOWARN" % 0)
background(100, 0xffff888120000000)

if new:
    # 6.18: kfree() of kmem_cache objects is legal
    for i in range(10):
        p = 0xffff888130000000 + 0x100 * i
        cache_alloc(S("mas_push_data", 0x836), p, "maple_node", 256)
        kfree(S("__mt_destroy", 0x8e), p)
    # maple nodes freed by kfree_rcu() through sheaves, without events
    for i in range(10):
        p = 0xffff888131000000 + 0x100 * i
        cache_alloc(S("mas_preallocate", 0x3ef), p, "maple_node", 256)
        cache_alloc(S("mas_preallocate", 0x3ef), p, "maple_node", 256)
    # sk_buffs allocated in bulk for the NAPI cache, without events
    skb = 0xffff888132000000
    cache_alloc(S("__alloc_skb", 0x147), skb, "skbuff_head_cache", 256)
    cache_free(S("unix_stream_connect", 0x23b), skb, "skbuff_head_cache")
    cache_free(S("virtio_transport_tx_work", 0x5c), skb, "skbuff_head_cache",
               pid=50, comm="kworker/1:2")
    # pages allocated again by alloc_pages_bulk(), without events
    for i in range(8):
        page_alloc(0x320000 + i, pid=60, comm="bpf")
        page_free(0x320000 + i, pid=60, comm="bpf")
        page_free(0x320000 + i, pid=50, comm="kworker/1:2", dt=0.002)

# the misuse
p = 0xffff888140000000
kmalloc(S("planted_double_alloc"), p, 100, 128, pid=400, comm="victim")
kfree(S("planted_double_kfree"), p, pid=400, comm="victim")
kfree(S("planted_double_kfree"), p, pid=400, comm="victim")
planted.append("double_free@planted_double_kfree")

p = 0xffff888140001000
cache_alloc(S("planted_filp_alloc"), p, "filp", 192, pid=400, comm="victim")
cache_free(S("planted_wrong_cache"), p, "sock_inode_cache", pid=400,
           comm="victim")
planted.append("cache_mismatch@planted_wrong_cache")

kfree(S("planted_bogus_free"), 0xffff888140002000, pid=400, comm="victim")
planted.append("unknown_free@planted_bogus_free")

kmalloc(S("planted_short_alloc"), 0xffff888140003000, 200, 128, pid=400,
        comm="victim")
planted.append("alloc_below_req@planted_short_alloc")

if not new:
    p = 0xffff888140004000
    cache_alloc(S("planted_dentry_alloc"), p, "dentry", 192, pid=400,
                comm="victim")
    kfree(S("planted_kfree_cache"), p, pid=400, comm="victim")
    planted.append("kfree_of_cache_object@planted_kfree_cache")
    page_alloc(0x7770, pid=400, comm="victim")
    page_free(0x7770, pid=400, comm="victim")
    page_free(0x7770, pid=400, comm="victim")
    planted.append("page_double_free@0x7770")

background(100, 0xffff888150000000)

print("# planted: " + " ".join(planted))
print("# tracer: nop")
print("#")
print("#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION")
print("#              | |         |   |||||     |         |")
print("\n".join(lines))
