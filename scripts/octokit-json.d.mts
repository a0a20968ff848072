import type { Plugin } from "esbuild";
export declare const octokitJson: Plugin;
