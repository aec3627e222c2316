import LaunchBench

/// The page faults of one launch's main thread, as xnu traces them: `MACH_vmfault` (0x01300008) START with
/// arg1 = address >> 32, arg2 = address, arg3 = 0 (not the kernel map) (xnu-11417.101.15
/// `osfmk/vm/vm_fault.c:4399-4403`), END with the same address, arg3 = `KERN_SUCCESS` and arg4 = the fault
/// type (`:6738-6743`).
///
/// What a launch touches is modelled, not observed: each app image's text pages (the executable more than a
/// framework), its `__DATA` pages written once each, and fresh heap and stack pages. Their types follow xnu:
/// a text page the file cache lacks is read from its vnode, `DBG_PAGEINV_FAULT` (`vm_fault.c:2539-2546`,
/// the first page of each 4-page cluster with the read's latency, the read-ahead pages after it mapped later
/// as `DBG_PAGEINV_FAULT` too, `:3868-3880`); a resident one is `DBG_CACHE_HIT_FAULT` (`:1156`): so a cold
/// launch (the first after an install or a reboot) pages in and a warm one hits the cache. A write to a
/// `__DATA` page is `DBG_COW_FAULT` (`:2252`) and a fresh page `DBG_ZERO_FILL_FAULT` (`:916`) on every launch.
struct KdebugPageFaults {
    /// iOS's arm64 page size.
    static let pageSize: UInt64 = 0x4000
    /// Text pages a launch touches in the executable and in each framework (modelled; the emulator's images
    /// lie 1 MiB apart, so each image's pages stay inside its range).
    static let executablePages = 48
    static let frameworkPages = 32
    /// `__DATA` pages written per image, and fresh heap/stack pages per launch (modelled).
    static let dataPages = 12
    static let zeroFillPages = 240
    /// Pages xnu reads in one cluster on a miss (modelled; `vm_fault.c` leaves it to the pager's policy).
    static let clusterPages = 4

    /// Whether the file cache is cold (the first launch after an install or a reboot).
    let cold: Bool
    /// Each app image's load address, the executable first.
    let imageAddresses: [UInt64]
    /// The faulting thread.
    let thread: UInt64

    /// One fault: START at `atUs`, END `durationUs` later, both counted from the exec at `execTick`.
    struct Fault {
        var address: UInt64
        var type: VMFaultType
        var durationUs: UInt64
    }

    /// The launch's faults, in the order they are taken.
    func faults(random: inout SeededRandom) -> [Fault] {
        var out: [Fault] = []
        for (index, base) in imageAddresses.enumerated() {
            let pages = index == 0 ? Self.executablePages : Self.frameworkPages
            for page in 0..<pages {
                let address = base + UInt64(page) * Self.pageSize
                if !cold {
                    out.append(Fault(address: address, type: .cacheHit, durationUs: 2))
                } else if page % Self.clusterPages == 0 {
                    out.append(Fault(address: address, type: .pageInFile, durationUs: 90 + UInt64(random.unit() * 160)))
                } else {
                    out.append(Fault(address: address, type: .pageInFile, durationUs: 4))
                }
            }
            // __DATA sits after __TEXT in the image, within its 1 MiB.
            for page in 0..<Self.dataPages {
                let address = base + 0xC_0000 + UInt64(page) * Self.pageSize
                out.append(Fault(address: address, type: .copyOnWrite, durationUs: 6))
            }
        }
        let heap: UInt64 = 0x2_8000_0000
        for page in 0..<Self.zeroFillPages {
            out.append(Fault(address: heap + UInt64(page) * Self.pageSize, type: .zeroFill, durationUs: 3))
        }
        // Interleave the kinds as a launch would, deterministically per launch.
        for index in out.indices.reversed() where index > 0 {
            out.swapAt(index, Int(random.next() % UInt64(index + 1)))
        }
        return out
    }

    /// The records of `faults` spread evenly over `fromUs` ..< `toUs` after the exec.
    func records(_ faults: [Fault], fromUs: UInt64, toUs: UInt64, execTick: UInt64) -> [KdebugRecord] {
        guard !faults.isEmpty, toUs > fromUs else { return [] }
        let step = Double(toUs - fromUs) / Double(faults.count)
        let perUs = KdebugLaunchEvents.ticksPerMicrosecond
        var out: [KdebugRecord] = []
        out.reserveCapacity(faults.count * 2)
        for (index, fault) in faults.enumerated() {
            let startUs = fromUs + UInt64(Double(index) * step)
            let duration = min(fault.durationUs, max(1, UInt64(step)))
            let start = execTick &+ startUs &* perUs
            out.append(
                KdebugRecord(
                    timestamp: start, debugID: Self.id(.start), args: [fault.address >> 32, fault.address, 0, 0],
                    threadID: thread))
            out.append(
                KdebugRecord(
                    timestamp: start &+ duration &* perUs, debugID: Self.id(.end),
                    args: [fault.address >> 32, fault.address, 0, UInt64(fault.type.rawValue)], threadID: thread))
        }
        return out
    }

    private static func id(_ function: KdebugFunction) -> KdebugDebugID {
        KdebugDebugID(rawValue: KdebugDebugID.machVMFault.rawValue | function.rawValue)
    }
}
