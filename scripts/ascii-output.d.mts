import type { Plugin } from "esbuild";
export declare function asciiOnly(text: string): string;
export declare const asciiOutput: Plugin;
