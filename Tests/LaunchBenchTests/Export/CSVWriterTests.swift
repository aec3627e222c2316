import Foundation
import LaunchBench
import Testing

@Suite struct CSVWriterTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("Ana's iPhone", "Ana's iPhone"),
        ("a,b", "\"a,b\""),
        ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ("two\nlines", "\"two\nlines\""),
        ("cr\r\nlf", "\"cr\r\nlf\""),
        (" padded ", " padded "),
        ("", ""),
        ("日本語の iPhone", "日本語の iPhone"),
    ])
    func quotesPerRFC4180(text: String, expected: String) {
        #expect(CSVWriter.render(.text(text)) == expected)
    }

    @Test(arguments: [
        ("=HYPERLINK(\"http://evil\",\"x\")", "\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\""),
        ("+1 phone", "'+1 phone"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1:A2)", "'@SUM(A1:A2)"),
        ("\tcmd", "'\tcmd"),
        ("\rcmd", "\"'\rcmd\""),
        ("=1,2", "\"'=1,2\""),
        ("a=b", "a=b"),
        ("-12", "-12"),
        ("+3.5", "+3.5"),
    ])
    func neutralisesFormulaLikeText(text: String, expected: String) {
        #expect(CSVWriter.render(.text(text)) == expected)
    }

    @Test func numbersAreNeverNeutralisedAndUseDotDecimals() {
        #expect(CSVWriter.render(.number(-3.5)) == "-3.5")
        #expect(CSVWriter.render(.number(412.5)) == "412.5")
        #expect(CSVWriter.render(.number(1234567.25)) == "1234567.25")
        #expect(CSVWriter.render(.number(400)) == "400")
        #expect(CSVWriter.render(.number(0.1 + 0.2)) == "0.30000000000000004")
        #expect(CSVWriter.render(.number(412.33333333, fractionDigits: 3)) == "412.333")
        #expect(CSVWriter.render(.number(412.5004, fractionDigits: 3)) == "412.5")
        #expect(CSVWriter.render(.number(2.0, fractionDigits: 3)) == "2")
        #expect(CSVWriter.render(.number(-0.0001, fractionDigits: 3)) == "0")
        #expect(CSVWriter.render(.number(0.00001)) == "0.00001")
        #expect(CSVWriter.render(.number(nil)) == "")
        #expect(CSVWriter.render(.number(.nan)) == "")
        #expect(CSVWriter.render(.integer(nil)) == "")
        #expect(CSVWriter.render(.integer(-7)) == "-7")
    }

    @Test func exactDecimalsKeepZeros() {
        #expect(DecimalText.exact(3, fractionDigits: 1) == "3.0")
        #expect(DecimalText.exact(412.46, fractionDigits: 1) == "412.5")
        #expect(DecimalText.exact(-1.25, fractionDigits: 2) == "-1.25")
        #expect(DecimalText.exact(0.5, fractionDigits: 3) == "0.500")
    }

    @Test func documentUsesCRLFAndOptionalBOM() {
        var writer = CSVWriter(header: ["name", "ms"])
        writer.append([.text("x, \"y\""), .number(1.5)])
        writer.append([.text("@evil"), .empty])
        #expect(writer.text == "name,ms\r\n\"x, \"\"y\"\"\",1.5\r\n'@evil,\r\n")
        #expect(Array(writer.data(byteOrderMark: true).prefix(3)) == [0xEF, 0xBB, 0xBF])
        #expect(writer.data(byteOrderMark: false) == Data(writer.text.utf8))
    }

    @Test func stringRowsAndTypedRowsAgree() {
        var writer = CSVWriter(header: ["a", "b"])
        writer.append([.text("x,y"), .text("=1")])
        #expect(writer.text == CSVWriter.document(header: ["a", "b"], rows: [["x,y", "=1"]]))
        #expect(CSVWriter.line(["q\"", "-1.5"]) == "\"q\"\"\",-1.5\r\n")
    }

    /// A reader following RFC 4180 gets every original text back (minus the neutralising quote).
    @Test func roundTripsThroughAnRFC4180Reader() {
        let names = ["a,b", "q\"uote", "multi\nline", "=cmd|' /C calc'!A0", "plain", "trailing\r\n"]
        var writer = CSVWriter(header: ["name"])
        for name in names { writer.append([.text(name)]) }
        let rows = Self.parse(writer.text)
        #expect(rows.count == names.count + 1)
        for (row, name) in zip(rows.dropFirst(), names) {
            let expected = name.first == "=" ? "'" + name : name
            #expect(row == [expected])
        }
    }

    /// A minimal independent RFC 4180 reader for the test.
    static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var chars = Array(text.unicodeScalars)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" {
                    if chars.first == "\"" {
                        chars.removeFirst()
                        field.unicodeScalars.append("\"")
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field)
                field = ""
            } else if c == "\r" && chars.first == "\n" {
                chars.removeFirst()
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            } else {
                field.unicodeScalars.append(c)
            }
        }
        return rows
    }
}
