import Foundation
import Testing
@testable import Plugboard

/// Reading a policy file: the rule precedence, and an error naming the file, where and why.
@Suite struct AccessPolicyTests {
    private func policy(_ json: String) throws(AccessPolicyError) -> AccessPolicy {
        try AccessPolicy(json: Data(json.utf8), source: "policy.json")
    }

    private func error(_ json: String) -> String {
        do {
            _ = try policy(json)
            return "no error"
        } catch {
            return error.description
        }
    }

    @Test func aPluginRuleAllowsWhatTheDefaultDeniesAndDeniesMore() throws {
        let policy = try policy("""
            {"default": {"deny": ["files", "invoke"]},
             "plugins": {"com.example.sync": {"allow": ["files"], "deny": ["open-url", "post"]}}}
            """)
        let sync = try PluginID(validating: "com.example.sync")
        let other = try PluginID(validating: "com.example.other")
        #expect(policy.denials(of: sync) == [.service(.invoke), .concern(.openURL), .service(.post)])
        #expect(policy.denials(of: other) == [.service(.files), .service(.invoke)])
        #expect(policy.denies(other, .service(.files)) && !policy.denies(sync, .service(.files)))
        #expect(!policy.denies(other, .concern(.launch)))
    }

    @Test func anEmptyPolicyAllowsEverything() throws {
        #expect(try policy("{}").denials(of: PluginID(validating: "com.example.x")).isEmpty)
    }

    @Test func everyFaultNamesTheFileWhereAndWhy() {
        #expect(error("{\"default\": {\"deny\": [\"fils\"]}}")
                == "the policy file 'policy.json': default.deny[0] names \"fils\", which is not a concern or a service (known: launch, open-url, user-activity, remote-notifications, memory, protected-data, app-state, termination, saved-state, files, invoke, post, observe)")
        #expect(error("{\"plugins\": {\"com.example.x\": {\"deny\": [\"files\", 3]}}}")
                .hasPrefix("the policy file 'policy.json': plugins.com.example.x.deny[1] names 3, which is not"))
        #expect(error("{\"defaults\": {}}") == "the policy file 'policy.json': defaults is not a policy key (the keys are \"default\", \"plugins\" and \"libraries\")")
        #expect(error("{\"default\": {\"denied\": []}}") == "the policy file 'policy.json': default.denied is not a rule key (a rule has \"allow\" and \"deny\")")
        #expect(error("{\"default\": {\"deny\": \"files\"}}") == "the policy file 'policy.json': default.deny must be a list of names")
        #expect(error("{\"plugins\": {\"not an id\": {}}}").hasPrefix("the policy file 'policy.json': plugins.not an id is not a plugin id: "))
        #expect(error("{\"plugins\": {\"com.example.x\": {\"allow\": [\"files\"], \"deny\": [\"files\"]}}}")
                == "the policy file 'policy.json': plugins.com.example.x both allows and denies \"files\"")
        #expect(error("[]") == "the policy file 'policy.json' must hold a JSON object with \"default\" and \"plugins\"")
        #expect(error("{\"default\": {\"deny\": [1e400]}}") == "the policy file 'policy.json' cannot be read: it holds a number out "
                + "of the range of a 64-bit floating-point number (such as 1e400)")
        let syntax = error("{\"default\": {\"deny\": [\"files\"]},\n  \"plugins\": x }")
        #expect(syntax.hasPrefix("the policy file 'policy.json' is not valid JSON: ") && syntax.contains("line 2, column 14"), "\(syntax)")
    }

    @Test func aDuplicateKeyIsRefusedWithItsPathAndLineNotResolvedLastWins() {
        #expect(error(#"{"default": {"deny": ["files"]}, "default": {"deny": []}}"#)
                == "the policy file 'policy.json': default is not valid JSON: line 1, column 34: the key \"default\" appears twice in one object")
        #expect(error("{\"plugins\": {\"com.example.x\": {\"deny\": [\"files\"],\n  \"deny\": []}}}")
                == "the policy file 'policy.json': plugins.com.example.x.deny is not valid JSON: line 2, column 3: the key \"deny\" appears twice in one object")
    }

    @Test func aTrailingCommaIsRefusedWithItsLineAndColumn() {
        #expect(error("{\"default\": {\"deny\": [\"files\",]}}")
                == "the policy file 'policy.json' is not valid JSON: line 1, column 31: a trailing comma before ']'")
        #expect(error("{\"default\": {\"deny\": []},\n}")
                == "the policy file 'policy.json' is not valid JSON: line 2, column 1: a trailing comma before '}'")
    }

    @Test func aMissingFileIsNamed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(throws: AccessPolicyError.self) { try AccessPolicy(contentsOf: directory.file("absent.json")) }
        do {
            _ = try AccessPolicy(contentsOf: directory.file("absent.json"))
        } catch {
            #expect(error.description.hasPrefix("the policy file '\(directory.file("absent.json"))' cannot be read"), "\(error)")
        }
    }

    /// A folder, a device or a FIFO given as the policy is refused for what it is, not read (a FIFO
    /// would wait for a writer); a file past the largest read is refused by its size, not read.
    @Test func aFileThatIsNotAPolicyIsRefusedUnread() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.file("fifo.json")
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [directory.path, "/dev/zero", fifo] {
            #expect(throws: AccessPolicyError.self) { try AccessPolicy(contentsOf: path) }
            do {
                _ = try AccessPolicy(contentsOf: path)
            } catch {
                #expect(error.description == "the policy file '\(path)' is not a regular file", "\(error)")
            }
        }
        let large = directory.file("large.json")
        #expect(FileManager.default.createFile(atPath: large, contents: nil) && truncate(large, off_t(AccessPolicy.largestFile + 1)) == 0)
        do {
            _ = try AccessPolicy(contentsOf: large)
            Issue.record("a policy file past the largest read was read")
        } catch {
            #expect(error.description == "the policy file '\(large)' is \(AccessPolicy.largestFile + 1) bytes long; the largest policy read is 16 MiB",
                    "\(error)")
        }
    }
}
