import type { Plugin } from "esbuild";
export declare const RUN_MACHINERY_OUT: string;
export declare const DEFERRED_OUT: string;
export declare const onDemandBundles: Plugin;
