/// The fault types xnu traces as the fourth argument of `MACH_vmfault`'s END (xnu-11417.101.15
/// `bsd/sys/kdebug.h:415-425`; the END at `osfmk/vm/vm_fault.c:6738-6743` passes
/// `vm_fault_type_for_tracing(need_copy_on_read, type_of_fault)`, `:4258`).
package enum VMFaultType: UInt8, Sendable, CaseIterable {
    /// `DBG_ZERO_FILL_FAULT`: a fresh zeroed page (heap, stack, `__DATA` without file contents).
    case zeroFill = 0x01
    /// `DBG_PAGEIN_FAULT`: only an intermediate value: `vm_fault_page` turns it into PAGEINV or PAGEIND before
    /// it is returned (`vm_fault.c:2539-2546`), so the END never carries it.
    case pageIn = 0x02
    /// `DBG_COW_FAULT`: a copy-on-write copy (a write to a `__DATA` page of an image).
    case copyOnWrite = 0x03
    /// `DBG_CACHE_HIT_FAULT`: the page was resident (the file cache of a warm launch).
    case cacheHit = 0x04
    /// `DBG_NZF_PAGE_FAULT`: a page that needed no zero fill.
    case noZeroFill = 0x05
    /// `DBG_GUARD_FAULT`: a guard page.
    case guardPage = 0x06
    /// `DBG_PAGEINV_FAULT`: a page read from a file (vnode pager, `object->internal == false`,
    /// `vm_fault.c:2545`), or a clustered read-ahead page mapped the first time (`:3877-3880`): a page-in.
    case pageInFile = 0x07
    /// `DBG_PAGEIND_FAULT`: a page of anonymous memory read back from the default pager (`vm_fault.c:2543`).
    case pageInAnonymous = 0x08
    /// `DBG_COMPRESSOR_FAULT`: a page decompressed from the compressor (`vm_compressor_pager.c:857`).
    case compressor = 0x09
    /// `DBG_COMPRESSOR_SWAPIN_FAULT`: the same, after the compressed segment was swapped in (`:868`).
    case compressorSwapIn = 0x0A
    /// `DBG_COR_FAULT`: copy-on-read (`vm_fault.c:4260-4261`).
    case copyOnRead = 0x0B
}

/// One completed page fault: `MACH_vmfault` (0x01300008, `DBG_MACH`/`DBG_MACH_VM`, `DBG_VM_FAULT_INTERNAL`)
/// START and END on one thread. START: arg1 = address >> 32, arg2 = the address, arg3 = kernel map
/// (`vm_fault.c:4399-4403`); END: the same address, arg3 = `kern_return_t`, arg4 = the fault type (`:6738-6743`).
/// 33 bytes of fields, so a launch's faults cost a third of their two 64-byte records.
package struct VMFault: Sendable, Hashable {
    /// The START's timestamp (ticks).
    package var startTimestamp: UInt64
    /// END − START (ticks); a fault longer than 2³² ticks (about 3 minutes) is cut to that.
    package var ticks: UInt32
    /// The faulting address (page-aligned by xnu).
    package var address: UInt64
    /// The faulting thread.
    package var threadID: UInt64
    /// The END's type, nil when xnu wrote one this reader does not know.
    package var type: VMFaultType?
    /// Whether the END reported success (`KERN_SUCCESS` in arg3).
    package var succeeded: Bool

    /// A fault from its fields.
    package init(
        startTimestamp: UInt64, ticks: UInt32, address: UInt64, threadID: UInt64, type: VMFaultType?,
        succeeded: Bool = true
    ) {
        self.startTimestamp = startTimestamp
        self.ticks = ticks
        self.address = address
        self.threadID = threadID
        self.type = type
        self.succeeded = succeeded
    }
}

extension KdebugDebugID {
    /// `MACH_vmfault`: `MACHDBG_CODE(DBG_MACH_VM, DBG_VM_FAULT_INTERNAL)` = 0x01300008 (xnu-11417.101.15
    /// `bsd/sys/kdebug.h:161,331,1193`; `bsd/kern/trace_codes:370`). A session traces it with `0x01300000`.
    package static let machVMFault = KdebugDebugID(rawValue: 0x0130_0008)
}

/// Pairs `MACH_vmfault` STARTs and ENDs as records arrive: per thread, an END closes that thread's open
/// START (a thread takes one fault at a time; xnu emits both on the faulting thread). Holds one open START
/// per thread, nothing else.
package struct VMFaultPairing: Sendable {
    private var open: [UInt64: KdebugRecord] = [:]

    /// A pairing with nothing open.
    package init() {}

    /// Takes one record.
    /// - Parameter record: any record; only `MACH_vmfault` ones are looked at.
    /// - Returns: the fault it completes, if it is an END whose START was seen.
    package mutating func consume(_ record: KdebugRecord) -> VMFault? {
        guard record.debugID.eventID == .machVMFault else { return nil }
        switch record.debugID.function {
        case .start:
            open[record.threadID] = record
            return nil
        case .end:
            guard let start = open.removeValue(forKey: record.threadID), record.timestamp >= start.timestamp else {
                return nil
            }
            return VMFault(
                startTimestamp: start.timestamp,
                ticks: UInt32(clamping: record.timestamp - start.timestamp), address: start.arg2,
                threadID: record.threadID, type: VMFaultType(rawValue: UInt8(truncatingIfNeeded: record.arg4)),
                succeeded: record.arg3 == 0)
        case .none, .startAndEnd:
            return nil
        }
    }

    /// The faults in `records`, paired in timestamp order.
    /// - Parameter records: a trace's records (any order).
    /// - Returns: the completed faults, by START time.
    package static func faults(in records: [KdebugRecord]) -> [VMFault] {
        var pairing = VMFaultPairing()
        let sorted = records.filter { $0.debugID.eventID == .machVMFault }.enumerated().sorted {
            ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset)
        }
        return sorted.compactMap { pairing.consume($0.element) }.sorted { $0.startTimestamp < $1.startTimestamp }
    }
}
