import LaunchBench
import Testing

@Suite struct TextTableTests {
    @Test func alignsColumnsAndTrimsTrailingSpace() {
        var table = TextTable(headers: ["device", "ms"], alignments: [.left, .right])
        table.append(["iPhone 5", "840.10"])
        table.append(["iPhone 11 Pro Max", "9.5"])
        #expect(
            table.render() == """
                device                 ms
                iPhone 5           840.10
                iPhone 11 Pro Max     9.5
                """)
    }

    @Test func wideCharactersTakeTwoColumns() {
        var table = TextTable(headers: ["name", "x"])
        table.append(["日本", "1"])
        table.append(["abcd", "2"])
        let lines = table.render().split(separator: "\n")
        #expect(lines[1] == "日本  1")
        #expect(lines[2] == "abcd  1".replacingOccurrences(of: "1", with: "2"))
    }
}
