extension MachOFile {
    /// The function an address inside the image belongs to, by its offset from the load address: the symbol
    /// at the function start at or before it (`LC_FUNCTION_STARTS`); a start without a symbol (a stripped
    /// binary's static function) is `func_0x4000`. Without function starts, the nearest preceding symbol,
    /// with `+0x…` when the offset is not its start. Nil when the offset precedes every function.
    /// - Parameter offset: the address minus the image's load address.
    package func function(atOffset offset: UInt64) -> String? {
        if let start = Self.lastElement(functionStarts, atMost: offset) {
            let named = symbols.first { $0.offset == start }
            let name = named?.name ?? "func_0x" + String(start, radix: 16)
            return offset == start ? name : name + "+0x" + String(offset - start, radix: 16)
        }
        guard let symbol = Self.lastElement(symbols.map(\.offset), atMost: offset),
            let named = symbols.last(where: { $0.offset == symbol })
        else { return nil }
        return offset == symbol ? named.name : named.name + "+0x" + String(offset - symbol, radix: 16)
    }

    /// The largest element of an ascending array that is at most `value` (binary search).
    static func lastElement(_ sorted: [UInt64], atMost value: UInt64) -> UInt64? {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] <= value { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : sorted[low - 1]
    }
}
