/// Puts records streamed from a file in time order, holding a bounded window of them.
///
/// Records are measured in time order (the trace-pair ids, the thread map and the windows all assume it). xnu's
/// `kdbg_read` merges the CPUs' buffers by timestamp, so a capture is close to ordered; what a window of
/// ``window`` records cannot put back in place (a record more than that many records late) is handed on where
/// it arrived and counted in ``late``, which `parse` reports.
package struct KdebugRecordOrder {
    /// How many records are held to reorder: 65,536 (3.5 MiB).
    package static let window = 65_536

    private var heap: [(record: KdebugRecord, sequence: Int)] = []
    private var sequence = 0
    private var lastTimestamp: UInt64 = 0
    /// Records handed on after a later one had been: too late for the window.
    package private(set) var late = 0
    private let capacity: Int

    /// An empty window.
    /// - Parameter capacity: how many records to hold.
    package init(capacity: Int = window) {
        self.capacity = max(1, capacity)
        heap.reserveCapacity(self.capacity + 1)
    }

    /// Takes the next record from the file; hands on the earliest when the window is full.
    package mutating func push(_ record: KdebugRecord, emit: (KdebugRecord) throws -> Void) rethrows {
        heap.append((record, sequence))
        sequence += 1
        siftUp(heap.count - 1)
        if heap.count > capacity { try emit(pop()) }
    }

    /// Hands on every record still held, in order.
    package mutating func flush(emit: (KdebugRecord) throws -> Void) rethrows {
        while !heap.isEmpty { try emit(pop()) }
    }

    private static func before(_ a: (record: KdebugRecord, sequence: Int), _ b: (record: KdebugRecord, sequence: Int))
        -> Bool
    {
        (a.record.timestamp, a.sequence) < (b.record.timestamp, b.sequence)
    }

    private mutating func pop() -> KdebugRecord {
        let top = heap[0].record
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        if top.timestamp < lastTimestamp { late += 1 } else { lastTimestamp = top.timestamp }
        return top
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count, Self.before(heap[left + 1], heap[left]) { smallest = left + 1 }
            guard Self.before(heap[smallest], heap[parent]) else { return }
            heap.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
