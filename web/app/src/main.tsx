// Hearth's browser client. ../README.md says how it is built: where the state lives, how it
// changes, what each screen gets; ui/App.tsx is the top of the screens.

import { render } from "preact";
import { App } from "./ui/App";
import "./style.css";

render(<App />, document.getElementById("app")!);
