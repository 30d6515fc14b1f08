//! `com.example.rust-files`: at did-finish-launching, uses every files method of its `Host`
//! on the application's container and logs one line per result, then three failures with
//! their status and message: a missing file, an existing destination, a NUL in a path.

use plugboard::*;

struct Files {
    host: Host,
}

impl Plugin for Files {
    const ID: &'static str = "com.example.rust-files";

    fn new(host: Host) -> Result<Self, String> {
        Ok(Files { host })
    }
}

impl Files {
    fn say(&self, line: String) {
        self.host.log(Level::Info, &line);
    }

    fn tour(&self) -> Result<(), FilesError> {
        let host = &self.host;
        host.write("Documents/a.txt", b"hello", FileFlags::NONE)?;
        self.say(format!("read {}", String::from_utf8_lossy(&host.read("Documents/a.txt")?)));
        self.say(format!("exists {}", host.exists("Documents/a.txt")?));
        host.copy("Documents/a.txt", "Documents/b.txt", FileFlags::NONE)?;
        host.rename("Documents/b.txt", "c.txt", FileFlags::NONE)?;
        self.say(format!("new path {}", host.change_extension("Documents/c.txt", "md", FileFlags::NONE)?));
        host.move_item("Documents/c.md", "Library/notes/c.md", FileFlags::CREATE_FOLDERS | FileFlags::OVERWRITE)?;
        self.say(format!("list {}", host.list("Library/notes")?));
        let attributes = host.attributes("Library/notes/c.md")?;
        self.say(format!("attributes kind {} size {}", attributes.kind, attributes.size));
        host.remove("Library/notes/c.md")?;
        self.say(format!("exists {}", host.exists("Library/notes/c.md")?));
        Ok(())
    }

    fn fail(&self, label: &str, result: Result<(), FilesError>) {
        match result {
            Ok(()) => self.say(format!("{label}: succeeded")),
            Err(error) => self.say(format!("{label}: {}: {}", error.status, error.message)),
        }
    }
}

impl LaunchPlugin for Files {
    fn did_finish_launching(&self, _options_json: &str) -> bool {
        self.fail("tour", self.tour());
        self.fail("missing", self.host.read("Documents/missing.txt").map(drop));
        self.fail("exists", self.host.write("Documents/a.txt", b"again", FileFlags::NONE));
        self.fail("nul", self.host.remove("Documents/a\0b"));
        true
    }
}

export_plugins! {
    Files => [LaunchPlugin],
}
