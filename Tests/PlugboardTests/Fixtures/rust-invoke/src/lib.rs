//! Calls com.example.units.convert and a function that does not exist at launch, through
//! `Host::invoke`, and logs both answers; then the same through `Host::prepare` (see the tests'
//! ConverterCallerRun). Also the bus: at launch it observes
//! com.example.rust.news (logging "received NAME PAYLOAD from SENDER") and posts it.

use plugboard::{Argument, Host, Level, LaunchPlugin, Plugin, Value};

struct Caller {
    host: Host,
}

impl Plugin for Caller {
    const ID: &'static str = "com.example.rustcaller";
    fn new(host: Host) -> Result<Self, String> {
        Ok(Caller { host })
    }
}

impl LaunchPlugin for Caller {
    fn did_finish_launching(&self, _options_json: &str) -> bool {
        let arguments = [Argument::Str("ft"), Argument::Str("m"), Argument::Double(3.0)];
        let line = match self.host.invoke("com.example.units.convert", &arguments) {
            Ok(Value::Double(metres)) => format!("3 ft = {metres} m"),
            Ok(other) => format!("unexpected {other:?}"),
            Err(error) => format!("cannot convert (status {}): {}", error.status, error.message),
        };
        self.host.log(Level::Info, &line);
        let missing = self.host.invoke("com.example.units.nosuch", &[Argument::Int(1)]);
        let line = match missing {
            Ok(value) => format!("nosuch answered {value:?}"),
            Err(error) => format!("nosuch: status {}: {}", error.status, error.message),
        };
        self.host.log(Level::Info, &line);
        self.host.log(Level::Info, &prepared(&self.host));
        let refused = match self.host.prepare("com.example.units.convert", &arguments) {
            Ok(convert) => match convert.set(2, Argument::Str("ten")) {
                Ok(()) => "prepared set: accepted".to_string(),
                Err(error) => format!("prepared set: status {}: {}", error.status, error.message),
            },
            Err(error) => format!("prepared: status {}", error.status),
        };
        self.host.log(Level::Info, &refused);
        let line = match self.host.prepare("com.example.units.nosuch", &[Argument::Int(1)]) {
            Ok(_) => "prepared nosuch: made".to_string(),
            Err(error) => format!("prepared nosuch: status {}: {}", error.status, error.message),
        };
        self.host.log(Level::Info, &line);
        let log = self.host.clone();
        let observed = self.host.observe("com.example.rust.news", move |notification| {
            log.log(Level::Info, &format!("received {} {} from {}", notification.name, notification.payload, notification.sender));
        });
        let posted = self.host.post("com.example.rust.news", r#"{"from":"rust"}"#);
        let refused = self.host.post("not a name", "{}").map_err(|error| error.status);
        self.host.log(Level::Info, &format!("observe {:?}, post {:?}, bad post {:?}", observed.is_ok(), posted, refused));
        true
    }
}

/// Convert prepared once, then called for 2 ft and 10 ft.
fn prepared(host: &Host) -> String {
    let arguments = [Argument::Str("ft"), Argument::Str("m"), Argument::Double(1.0)];
    let convert = match host.prepare("com.example.units.convert", &arguments) {
        Ok(convert) => convert,
        Err(error) => return format!("prepared: status {}: {}", error.status, error.message),
    };
    let mut metres = Vec::new();
    for feet in [2.0, 10.0] {
        match convert.set(2, Argument::Double(feet)).and_then(|()| convert.call()) {
            Ok(Value::Double(value)) => metres.push(value),
            Ok(other) => return format!("prepared: unexpected {other:?}"),
            Err(error) => return format!("prepared: status {}: {}", error.status, error.message),
        }
    }
    format!("prepared: 2 ft = {} m, 10 ft = {} m", metres[0], metres[1])
}

plugboard::export_plugins! { Caller => [LaunchPlugin] }
