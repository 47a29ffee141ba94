import "./styles.css";

import { mount } from "svelte";

import App from "./App.svelte";
import { trackHeldKeys } from "./lib/held-keys";

const target = document.getElementById("app");
if (!target) throw new Error("index.html has no #app element");

// Before anything else listens: the approval dialog asks which keys were down when it appeared.
trackHeldKeys(window);
mount(App, { target });
