/// Plain-text columns for terminals and CI logs: left-aligned text, right-aligned numbers.
package struct TextTable: Sendable {
    /// Where a column's cells sit: `left` for text, `right` for numbers (padded on the left).
    package enum Alignment: Sendable { case left, right }

    /// Column titles; their count is the table's number of columns.
    package var headers: [String]
    /// One per column; `render()` needs at least as many as `headers`.
    package var alignments: [Alignment]
    /// The rows appended so far, short ones padded with empty cells.
    package private(set) var rows: [[String]] = []

    /// - Parameters:
    ///   - headers: column titles.
    ///   - alignments: one per column; defaults to left for all.
    package init(headers: [String], alignments: [Alignment]? = nil) {
        self.headers = headers
        self.alignments = alignments ?? Array(repeating: .left, count: headers.count)
    }

    /// Appends a row; missing trailing cells are left empty, cells beyond the header count are not shown.
    /// Cells are any text (a phone's name): each is kept to one line (`UserText.tableCell`).
    package mutating func append(_ row: [String]) {
        rows.append(row.map(UserText.tableCell) + Array(repeating: "", count: max(0, headers.count - row.count)))
    }

    /// The table as lines joined by `\n`, columns separated by two spaces, no trailing spaces.
    package func render() -> String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { Self.displayWidth($0[column]) }.max() ?? 0 }
        return all.map { row in
            var line = ""
            for column in headers.indices {
                let cell = row[column]
                let pad = String(repeating: " ", count: widths[column] - Self.displayWidth(cell))
                let isLast = column == headers.count - 1
                switch alignments[column] {
                case .left: line += isLast ? cell : cell + pad
                case .right: line += pad + cell
                }
                if !isLast { line += "  " }
            }
            return String(line.reversed().drop(while: { $0 == " " }).reversed())
        }.joined(separator: "\n")
    }

    /// Terminal columns a string takes: one per grapheme, two for wide East Asian and emoji.
    static func displayWidth(_ text: String) -> Int {
        text.reduce(0) { width, character in
            guard let scalar = character.unicodeScalars.first else { return width }
            let v = scalar.value
            let wide =
                (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
                || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
                || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v)
            return width + (wide ? 2 : 1)
        }
    }
}
