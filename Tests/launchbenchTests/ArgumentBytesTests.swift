import Foundation
import Testing

@testable import launchbench

/// Arguments that are not UTF-8 are refused, not read as another name (`ArgumentBytes`); the built binary's
/// own refusal is checked in EndToEndTests (NonUTF8ArgumentTests).
@Suite struct ArgumentBytesTests {
    @Test func aLatin1PathIsRefusedNamingItsPositionAndTheFix() throws {
        let arguments: [[UInt8]] = [Array("run".utf8), Array("/tmp/caf".utf8) + [0xE9] + Array(".app".utf8)]
        let message = try #require(ArgumentBytes.problem(in: arguments))
        #expect(message.hasPrefix("Argument 2 (/tmp/caf\u{FFFD}.app"))
        #expect(message.contains("Rename the file or folder to a UTF-8 name"))
    }

    @Test func utf8ArgumentsPass() {
        #expect(ArgumentBytes.problem(in: [Array("run".utf8), Array("/tmp/café-📱.app".utf8), []]) == nil)
    }
}
